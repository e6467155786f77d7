/**
 * Federation: the subgraph SDL served at `_service { sdl }` composes into a supergraph with
 * @apollo/composition, every record type is keyed by id, and `_entities` resolves representations
 * through the engine as the caller, over HTTP.
 */
import { composeServices } from '@apollo/composition';
import { expect } from 'chai';
import { parse } from 'graphql';
import { USERS, type TestServer } from '../../helpers/server';
import { gql, startGraphQLServer } from './helpers';

describe('GraphQL federation (enableFederation)', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer({ enableFederation: true, federationServiceName: 'projects' });
  });
  after(async () => {
    await s?.stop();
  });

  it('serves a subgraph SDL that composes without errors, every record type keyed by id', async () => {
    const res = await gql(s, '{ _service { sdl } }');
    expect(res.status).to.equal(200);
    const sdl: string = res.body.data._service.sdl;
    for (const type of ['Project', 'Task', 'Milestone', 'Account', 'Contact', 'Expense'])
      expect(sdl).to.match(new RegExp(`type ${type}\\s+@key\\(fields: "id"\\)`));
    const result = composeServices([{ name: 'projects', typeDefs: parse(sdl), url: `${s.url}/api/graphql` }]);
    expect(result.errors ?? []).to.deep.equal([]);
    expect(result.supergraphSdl).to.be.a('string').and.to.contain('type Project');
  });

  it('composes beside another subgraph that extends Project', () => {
    const other = parse(`
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.0", import: ["@key"])
      type Project @key(fields: "id") { id: String! rating: Int }
      type Query { topRated: [Project] }
    `);
    return gql(s, '{ _service { sdl } }').then((res) => {
      const result = composeServices([
        { name: 'projects', typeDefs: parse(res.body.data._service.sdl), url: 'http://projects/graphql' },
        { name: 'ratings', typeDefs: other, url: 'http://ratings/graphql' },
      ]);
      expect(result.errors ?? []).to.deep.equal([]);
    });
  });

  it('resolves entities through _entities as the caller', async () => {
    const query =
      'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Project { id name status } ... on Task { id } } }';
    const representations = [
      { __typename: 'Project', id: 'prj-apollo' },
      { __typename: 'Project', id: 'no-such-project' },
    ];
    const res = await gql(s, query, { r: representations }, USERS.admin);
    expect(res.body.errors).to.equal(undefined);
    expect(res.body.data._entities).to.deep.equal([
      { __typename: 'Project', id: 'prj-apollo', name: 'Apollo Website Relaunch', status: 'active' },
      null,
    ]);
    // A member outside the record's scope sees nothing; a hidden field is refused as unknown.
    const all = await gql(s, '{ projectList { id owner } }', undefined, USERS.admin);
    const notAlices = all.body.data.projectList.find((p: any) => p.owner !== 'alice');
    const scoped = await gql(s, query, { r: [{ __typename: 'Project', id: notAlices.id }] }, USERS.alice);
    expect(scoped.body.data._entities).to.deep.equal([null]);
    const hidden = await gql(
      s,
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on Project { actual_cost } } }',
      { r: [{ __typename: 'Project', id: 'prj-apollo' }] },
      USERS.alice,
    );
    expect(hidden.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
  });

  it('still serves the ordinary queries and mutations', async () => {
    const res = await gql(s, '{ project(id: "prj-apollo") { id name } }', undefined, USERS.admin);
    expect(res.body).to.deep.equal({ data: { project: { id: 'prj-apollo', name: 'Apollo Website Relaunch' } } });
  });
});
