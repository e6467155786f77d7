/**
 * Relationships beside the rest of the plugin: the federation subgraph with the relation fields
 * still composes with @apollo/composition and `_entities` answers nested relations; a
 * subscription's record answers them too (read through the batch loader as the subscriber), over
 * graphql-ws.
 */
import { composeServices } from '@apollo/composition';
import { expect } from 'chai';
import { parse } from 'graphql';
import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { SECRET, token } from '../realtime/helpers';
import { gql, SQLITE, startGraphQLServer, untilSubscriptions } from './helpers';

describe('GraphQL relationships under federation', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer({ enableFederation: true, federationServiceName: 'projects' });
  });
  after(async () => {
    await s?.stop();
  });

  it('serves a subgraph with the relation fields that composes without errors', async () => {
    const res = await gql(s, '{ _service { sdl } }');
    const sdl: string = res.body.data._service.sdl;
    expect(sdl).to.contain('project_record: Project').and.to.contain('tasks_count(filters: String, where: TaskFilter): Int!');
    const result = composeServices([{ name: 'projects', typeDefs: parse(sdl), url: `${s.url}/api/graphql` }]);
    expect(result.errors ?? []).to.deep.equal([]);
    expect(result.supergraphSdl).to.contain('project_record: Project');
  });

  it('answers nested relations of _entities as the caller', async () => {
    const query = `query($r: [_Any!]!) { _entities(representations: $r) {
      ... on Project { name tasks(sort: "title") { title } account_record { name } }
      ... on Task { title project_record { name } }
    } }`;
    const representations = [
      { __typename: 'Project', id: 'prj-mercury' },
      { __typename: 'Task', id: 'tsk-apollo-api' },
    ];
    const admin = await gql(s, query, { r: representations }, USERS.admin);
    expect(admin.body).to.deep.equal({
      data: {
        _entities: [
          { name: 'Mercury Ledger Migration', tasks: [{ title: 'Hand over the migrated ledger' }], account_record: { name: 'Initech' } },
          { title: 'Build the content API', project_record: { name: 'Apollo Website Relaunch' } },
        ],
      },
    });
    // bob sees his task, not alice's project it belongs to.
    const bob = await gql(s, query, { r: [representations[1]] }, USERS.bob);
    expect(bob.body.data._entities).to.deep.equal([{ title: 'Build the content API', project_record: null }]);
  });
});

describe('GraphQL relationships in subscriptions', function () {
  this.timeout(20_000);
  let s: TestServer;
  let client: Client | undefined;
  const carol = { authorization: `Bearer ${token({ id: 'carol', roles: ['manager'] })}` };

  before(async () => {
    s = await startServer({ plugins: { graphql: true, auth: { jwt: { secret: SECRET } } }, datasources: SQLITE });
  });
  after(async () => {
    await client?.dispose();
    await s?.stop();
  });

  it("answers a created record's relations in the event, both directions", async () => {
    client = createClient({
      url: s.url.replace(/^http/, 'ws') + '/api/graphql',
      webSocketImpl: WebSocket,
      connectionParams: carol,
      retryAttempts: 0,
    });
    const events: ExecutionResult[] = [];
    const received = new Promise<void>((resolve, reject) => {
      client!.subscribe(
        { query: 'subscription { taskCreated { title project project_record { name milestones { name } tasks_count } } }' },
        {
          next: (value) => {
            events.push(value as ExecutionResult);
            resolve();
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    await untilSubscriptions(s, 1);
    const created = await s.request(
      'POST',
      '/api/graphql',
      { query: 'mutation { createTask(input: {title: "Ship it", project: "prj-mercury"}) { id } }' },
      carol,
    );
    expect(created.body.errors).to.equal(undefined);
    await received;
    expect(events[0]).to.deep.equal({
      data: {
        taskCreated: {
          title: 'Ship it',
          project: 'prj-mercury',
          project_record: { name: 'Mercury Ledger Migration', milestones: [{ name: 'Go live' }], tasks_count: 2 },
        },
      },
    });
  });
});
