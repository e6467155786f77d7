/**
 * The plugin's options (zod, errors naming the key), the names generated from objects and their
 * clashes (a unit test, and a server that refuses to start), and the port of its own.
 */
import { expect } from 'chai';
import type { ObjectDefinition } from '../../../server';
import { namesOf, objectNames } from '../../../plugins/graphql/naming';
import { parseOptions } from '../../../plugins/graphql/options';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startServer, USERS } from '../../helpers/server';
import { as, refusedUpgrade, SQLITE, startFailure, untilSubscriptions } from './helpers';

describe('GraphQL plugin options', () => {
  it('has the defaults of the spec', () => {
    expect(parseOptions(undefined)).to.deep.equal({
      path: '/api/graphql',
      introspection: true,
      enableSubscriptions: true,
      enableFederation: false,
      federationServiceName: 'objectql',
      maxTokens: 1000,
      maxDepth: 10,
      maxAliases: 15,
      maxDirectives: 50,
      maxSelections: 1000,
      maxCost: 50_000,
      persistedQueries: { maxEntries: 1000, maxQueryLength: 10_000 },
      batching: { maxBatchSize: 10 },
      jit: 2,
      maxReplay: 1000,
    });
    expect(parseOptions({ persistedQueries: false, batching: { maxBatchSize: 2 } })).to.deep.include({
      persistedQueries: false,
      batching: { maxBatchSize: 2 },
    });
    expect(parseOptions({ persistedQueries: { maxEntries: 5 } }).persistedQueries).to.deep.equal({ maxEntries: 5, maxQueryLength: 10_000 });
    expect(parseOptions({ port: 4001, introspection: false }).port).to.equal(4001);
    // The kernel's route prefix rule: a trailing slash is dropped.
    expect(parseOptions({ path: '/gql/' }).path).to.equal('/gql');
  });

  it('names the key of every wrong option', () => {
    expect(() => parseOptions({ introspection: 'yes' })).to.throw("Plugin 'graphql': introspection must be true or false");
    expect(() => parseOptions({ path: 'graphql' })).to.throw('path must be a path of plain segments');
    expect(() => parseOptions({ port: 70000 })).to.throw('port must be between 0 and 65535');
    expect(() => parseOptions({ federationServiceName: '1x' })).to.throw('federationServiceName must be a name');
    expect(() => parseOptions({ pubsub: {} })).to.throw('pubsub must be a publish/subscribe instance');
    expect(() => parseOptions({ introspect: true })).to.throw("unknown option 'introspect'");
    expect(() => parseOptions({ persistedQueries: 'on' })).to.throw(
      'persistedQueries must be true, false or {maxEntries?, maxQueryLength?}',
    );
    expect(() => parseOptions({ batching: { maxBatchSize: 0 } })).to.throw('batching');
    expect(() => parseOptions(true)).to.throw('options must be an object');
  });
});

describe('GraphQL names', () => {
  const def = (name: string, fields: string[] = ['id']): ObjectDefinition =>
    ({
      name,
      label: name,
      fields: Object.fromEntries(fields.map((f) => [f, { name: f, type: 'text', label: f }])),
    }) as unknown as ObjectDefinition;

  it('capitalises the object name for its types and names its root fields', () => {
    expect(objectNames('project')).to.deep.equal({
      object: 'project',
      type: 'Project',
      input: 'ProjectInput',
      one: 'project',
      list: 'projectList',
      create: 'createProject',
      update: 'updateProject',
      delete: 'deleteProject',
    });
  });

  it('stops on two objects that map to one name, naming both', () => {
    expect(() => namesOf([def('project'), def('Project')])).to.throw(
      "object 'Project' maps to the type 'Project', which object 'project' maps to as well",
    );
    expect(() => namesOf([def('thing'), def('thingList')])).to.throw(
      "object 'thingList' maps to the root field 'thingList', which object 'thing' maps to as well",
    );
    expect(() => namesOf([def('project'), def('projectInput')])).to.throw("maps to the type 'ProjectInput'");
    expect(() => namesOf([def('query')])).to.throw(
      "object 'query' maps to the type 'Query', which the built-in type Query maps to as well",
    );
    expect(() => namesOf([def('deleteResult')])).to.throw('DeleteResult');
  });

  it('stops on names that are no GraphQL names', () => {
    expect(() => namesOf([def('my-object')])).to.throw("object 'my-object' has no valid GraphQL name");
    expect(() => namesOf([def('thing', ['id', 'bad-field'])])).to.throw("field 'bad-field' of object 'thing' has no valid GraphQL name");
  });

  it('refuses to start a server whose objects clash', async () => {
    const message = await startFailure({
      'thing.object.yml': 'fields:\n  name:\n    type: text\n',
      'thingList.object.yml': 'fields:\n  name:\n    type: text\n',
    });
    expect(message).to.contain("object 'thingList' maps to the root field 'thingList', which object 'thing' maps to as well");
  });
});

describe('GraphQL on a port of its own', () => {
  it('serves /graphql on that port and nothing at the path on the main server', async () => {
    const s = await startServer({ plugins: { graphql: { port: 0 } }, datasources: SQLITE }, { identityFromHeader: true });
    try {
      const cap = (await s.request('GET', '/.well-known/objectql')).body.capabilities.find((c: any) => c.plugin === 'graphql');
      expect(cap.port).to.be.a('number');
      const own = `http://127.0.0.1:${cap.port}`;
      const res = await fetch(`${own}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...as(USERS.admin) },
        body: JSON.stringify({ query: '{ project(id: "prj-apollo") { id } }' }),
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ data: { project: { id: 'prj-apollo' } } });
      expect((await fetch(`${own}/api/data/project`)).status).to.equal(404);
      expect((await s.request('POST', '/api/graphql', { query: '{ __typename }' })).status).to.equal(404);
    } finally {
      await s.stop();
    }
  });

  it('serves subscriptions over graphql-ws at the same address on that port', async () => {
    const s = await startServer({ plugins: { graphql: { port: 0 }, rpc: true }, datasources: SQLITE }, { identityFromHeader: true });
    const cap = (await s.request('GET', '/.well-known/objectql')).body.capabilities.find((c: any) => c.plugin === 'graphql');
    // account has no permission file: an anonymous subscriber may read it.
    const client = createClient({ url: `ws://127.0.0.1:${cap.port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const name = `Own port ${Date.now()}`;
      const received = new Promise<string>((resolve, reject) => {
        client.subscribe<{ accountCreated: { name: string } }>(
          { query: 'subscription { accountCreated { name } }' },
          { next: (r) => r.data && resolve(r.data.accountCreated.name), error: reject, complete: () => undefined },
        );
      });
      await untilSubscriptions(s, 1);
      const res = await s.rpc({ op: 'create', object: 'account', args: { name } }, { 'x-test-user': JSON.stringify(USERS.carol) });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(await received).to.equal(name);
      const status = await refusedUpgrade(`ws://127.0.0.1:${cap.port}/elsewhere`);
      expect(status, 'an upgrade to another path on that port').to.equal(404);
    } finally {
      await client.dispose();
      await s.stop();
    }
  });
});
