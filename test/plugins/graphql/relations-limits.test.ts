/**
 * Relationships and their bounds: nesting deeper than the kernel's `limits.maxExpandDepth`
 * (EXPAND_DEPTH_EXCEEDED, also through an alias the batch loader reads) or the plugin's
 * `maxDepth` (a 400 before anything runs); and generated names that clash with a field or with
 * each other stop start-up naming both.
 */
import { expect } from 'chai';
import type { ObjectDefinition } from '../../../kernel';
import { namesOf } from '../../../plugins/graphql/naming';
import { relationFieldsOf } from '../../../plugins/graphql/relations-sdl';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { gql, SQLITE, startFailure } from './helpers';

describe('GraphQL relationships: depth limits', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer(
      { plugins: { graphql: { maxDepth: 5 } }, datasources: SQLITE, limits: { maxExpandDepth: 2 } },
      { identityFromHeader: true },
    );
  });
  after(async () => {
    await s?.stop();
  });

  const run = (query: string) => gql(s, query, undefined, USERS.admin);

  it('runs relations as deep as limits.maxExpandDepth and refuses one more with EXPAND_DEPTH_EXCEEDED', async () => {
    const two = await run('{ account(id: "acc-acme") { projects { tasks(top: 1, sort: "title") { title } } } }');
    expect(two.body).to.deep.equal({ data: { account: { projects: [{ tasks: [{ title: 'Build the content API' }] }] } } });
    const three = await run('{ account(id: "acc-acme") { projects { tasks { project_record { id } } } } }');
    expect(three.status).to.equal(200);
    expect(three.body.errors[0].extensions).to.deep.equal({ code: 'EXPAND_DEPTH_EXCEEDED', details: { max_depth: 2 } });
    // The root read plans every relation below it as one expand: the whole read is refused, as JSON-RPC's would be.
    expect(three.body.errors[0].path).to.deep.equal(['account']);
    expect(three.body.data.account).to.equal(null);
  });

  it('counts the depth from the root for what the batch loader reads (an alias with other arguments, a related record)', async () => {
    const within = await run('{ account(id: "acc-acme") { projects { a: tasks(top: 1) { id } b: tasks(top: 2) { id } } } }');
    expect(within.body.errors).to.equal(undefined);
    expect(within.body.data.account.projects[0].b).to.have.length(2);
    const beyond = await run(
      '{ account(id: "acc-acme") { projects { a: tasks(top: 1) { id } b: tasks(top: 2) { project_record { id } } } } }',
    );
    expect(beyond.body.errors[0].extensions.code).to.equal('EXPAND_DEPTH_EXCEEDED');
    // `b` has other arguments than `a`: the batch loader reads it (and what it selects), refused there.
    expect(beyond.body.errors[0].path).to.deep.equal(['account', 'projects', 0, 'b']);
  });

  it("refuses a document nested deeper than the plugin's maxDepth before anything runs", async () => {
    const res = await run('{ taskList { project_record { account_record { projects { tasks { id } } } } } }');
    expect(res.status).to.equal(400);
    expect(res.body.errors[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit: 'maxDepth', max: 5 } });
  });
});

describe('GraphQL relationships: generated names', () => {
  const def = (name: string, fields: Record<string, object>): ObjectDefinition =>
    ({
      name,
      fields: { id: { name: 'id', type: 'text' }, ...Object.fromEntries(Object.entries(fields).map(([n, f]) => [n, { name: n, ...f }])) },
    }) as any;
  const fieldsOf = (objects: ObjectDefinition[]) => relationFieldsOf(objects, namesOf(objects));

  it('names the related record, the reverse list and its count by the rule', () => {
    const objects = [
      def('owner', { name: { type: 'text' } }),
      def('thing', {
        owner: { type: 'lookup', reference_to: 'owner' },
        watchers: { type: 'lookup', reference_to: 'owner', multiple: true },
        keeper: { type: 'master_detail', reference_to: 'owner', related_name: 'kept' },
      }),
    ];
    const fields = fieldsOf(objects);
    expect([...fields.get('Thing')!.entries()].map(([n, f]) => [n, f.role])).to.deep.equal([
      ['owner_record', 'record'],
      ['watchers_records', 'records'],
      ['keeper_record', 'record'],
    ]);
    expect([...fields.get('Owner')!.entries()].map(([n, f]) => [n, f.role])).to.deep.equal([
      ['thing_by_owner', 'list'],
      ['thing_by_owner_count', 'count'],
      ['kept', 'list'],
      ['kept_count', 'count'],
    ]);
  });

  it('stops on a generated name that is a field, or another generated name, naming both', () => {
    expect(() =>
      fieldsOf([def('owner', {}), def('thing', { owner: { type: 'lookup', reference_to: 'owner' }, owner_record: { type: 'text' } })]),
    ).to.throw(
      "Plugin 'graphql': the related record of lookup 'thing.owner' maps to the field 'owner_record' of type 'Thing', which field 'owner_record' of object 'thing' maps to as well",
    );
    expect(() =>
      fieldsOf([
        def('owner', { things_count: { type: 'number' } }),
        def('thing', { owner: { type: 'lookup', reference_to: 'owner', related_name: 'things' } }),
      ]),
    ).to.throw(
      "the count of the reverse relation 'things' (from 'thing.owner') maps to the field 'things_count' of type 'Owner', which field 'things_count' of object 'owner' maps to as well",
    );
    expect(() =>
      fieldsOf([
        def('owner', { boss: { type: 'lookup', reference_to: 'thing' } }),
        def('thing', { owner: { type: 'lookup', reference_to: 'owner', related_name: 'boss_record' } }),
      ]),
    ).to.throw(
      "the reverse relation 'boss_record' (from 'thing.owner') maps to the field 'boss_record' of type 'Owner', which the related record of lookup 'owner.boss' maps to as well",
    );
  });

  it('refuses to start a server whose generated names clash', async () => {
    const message = await startFailure({
      'owner.object.yml': 'fields:\n  name: {type: text}\n  things_count: {type: number}\n',
      'thing.object.yml': 'fields:\n  owner: {type: lookup, reference_to: owner, related_name: things}\n',
    });
    expect(message).to.contain("maps to the field 'things_count' of type 'Owner'");
  });
});
