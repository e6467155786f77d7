/**
 * The schema cache is current while the registry's revision is the one it was built at: one
 * build however many requests, a rebuild (with fresh documents) when the revision moves — on a
 * real kernel through the metadata API, and against a stand-in registry.
 */
import { expect } from 'chai';
import { buildSchema as schemaOf } from 'graphql';
import type { ObjectDefinition } from '../../../kernel';
import { SchemaCache, type MetadataSource } from '../../../plugins/graphql/cache';
import { queryLimits } from '../../../plugins/graphql/limits';
import { parseOptions } from '../../../plugins/graphql/options';
import { buildSchema } from '../../../plugins/graphql/schema';
import { USERS, type TestServer } from '../../helpers/server';
import { as, gql, startGraphQLServer } from './helpers';

describe('GraphQL schema cache (registry revision)', () => {
  describe('on a real kernel', () => {
    let s: TestServer;
    let cache: SchemaCache;
    before(async () => {
      s = await startGraphQLServer();
      cache = new SchemaCache(
        () => s.kernel.registry,
        (objects) => buildSchema(objects, { engine: s.kernel.engine }),
        true,
        queryLimits(parseOptions(undefined), s.kernel.config.limits),
      );
    });
    after(async () => {
      await s?.stop();
    });

    it('builds once for every request until a metadata change moves the revision', async () => {
      const first = cache.get();
      for (let i = 0; i < 5; i++) expect(cache.get()).to.equal(first);
      expect(cache.buildCount).to.equal(1);
      const revision = s.kernel.registry.revision;
      const put = await s.request('PUT', '/api/metadata/object/milestone', { label: 'Checkpoint' }, as(USERS.admin));
      expect(put.status).to.equal(200);
      expect(s.kernel.registry.revision).to.equal(revision + 1);
      const rebuilt = cache.get();
      expect(rebuilt).to.not.equal(first);
      expect(rebuilt.documents, 'documents checked against the old schema are dropped').to.not.equal(first.documents);
      expect(cache.get()).to.equal(rebuilt);
      expect(cache.buildCount).to.equal(2);
    });

    it('serves the change on the endpoint', async () => {
      const res = await gql(s, '{ __type(name: "Milestone") { description } }');
      expect(res.body.data.__type.description).to.equal('A dated checkpoint of a project.');
      await s.request('PUT', '/api/metadata/object/milestone', { description: 'Moved by revision' }, as(USERS.admin));
      const after = await gql(s, '{ __type(name: "Milestone") { description } }');
      expect(after.body.data.__type.description).to.equal('Moved by revision');
    });
  });

  it('compares the revision only: it does not look into the objects', () => {
    const def = {
      name: 'thing',
      label: 'Thing',
      fields: { id: { name: 'id', type: 'text', label: 'Id' } },
    } as unknown as ObjectDefinition;
    const registry: MetadataSource & { revision: number } = { revision: 7, objects: () => [def] };
    const cache = new SchemaCache(
      () => registry,
      (objects) => ({ schema: schemaOf(`type Query { ${objects[0].name}: String }`), sdl: '' }),
      true,
      queryLimits(parseOptions(undefined), { maxJsonDepth: 64, defaultTop: 100, maxTop: 1000 }),
    );
    const first = cache.get();
    def.label = 'Changed without a revision';
    expect(cache.get()).to.equal(first);
    registry.revision = 8;
    expect(cache.get()).to.not.equal(first);
    expect(cache.buildCount).to.equal(2);
  });
});
