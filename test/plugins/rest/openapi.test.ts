/**
 * The REST plugin's contribution to the OpenAPI document through the kernel's `openapi` hook: a
 * base document with the object schemas, Error and PageMeta (as the openapi plugin makes it) run
 * through the hook must be a valid OpenAPI 3.0 document describing every REST route of every
 * object; and so must the document the openapi plugin serves, when that plugin is in the tree.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { documentSchemas, type OpenAPIDocument } from '../../../kernel/protocol';
import { startServer, type TestServer } from '../../helpers/server';

describe('REST in the OpenAPI document', () => {
  let s: TestServer;
  let doc: OpenAPIDocument;

  before(async () => {
    s = await startServer({ plugins: { rest: true }, routes: { data: '/v1/data' } });
    const objects = s.kernel.registry.objects();
    const base: OpenAPIDocument = {
      openapi: '3.0.3',
      info: { title: 'test', version: '1.0.0' },
      paths: { '/other': { get: { responses: { 200: { description: 'kept' } } } } },
      components: { schemas: documentSchemas(objects) },
    };
    doc = s.kernel.hooks.openapi.call(base);
  });
  after(async () => {
    await s?.stop();
  });

  it('is a valid OpenAPI 3.0 document whose references all resolve', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it('keeps the paths already there and adds the REST paths of every object under the data prefix', () => {
    expect(doc.paths).to.have.property('/other');
    for (const object of s.kernel.registry.objects().map((o) => o.name)) {
      const base = `/v1/data/${object}`;
      expect(Object.keys(doc.paths[base]!), object).to.have.members(['get', 'post']);
      expect(Object.keys(doc.paths[`${base}/{id}`]!)).to.have.members(['get', 'put', 'patch', 'delete']);
      expect(Object.keys(doc.paths[`${base}/bulk-update`]!)).to.deep.equal(['post']);
      expect(Object.keys(doc.paths[`${base}/bulk-delete`]!)).to.deep.equal(['post']);
    }
  });

  it('describes the list parameters, bodies and responses with the object schemas', () => {
    const list = doc.paths['/v1/data/project']!.get!;
    const names = (list.parameters as Array<{ name: string }>).map((p) => p.name);
    expect(names).to.deep.equal(['filter', 'sort', 'top', 'skip', 'limit', 'fields', 'expand', 'groupBy', 'aggregate']);
    const text = JSON.stringify(doc.paths['/v1/data/project']);
    expect(text)
      .to.include('#/components/schemas/Project"')
      .and.include('#/components/schemas/ProjectPartial"')
      .and.include('#/components/schemas/ProjectCreate"')
      .and.include('#/components/schemas/Error"');
    const ok = (list.responses['200'] as any).content['application/json'].schema;
    expect(ok.required).to.deep.equal(['items', 'meta']);
    expect(ok.properties.items.items).to.deep.equal({
      anyOf: [{ $ref: '#/components/schemas/ProjectPartial' }, { $ref: '#/components/schemas/GroupRow' }],
    });
    expect(ok.properties.meta).to.deep.equal({ $ref: '#/components/schemas/PageMeta' });
    expect(Object.keys(list.responses)).to.include.members(['200', '400', '403', '404']);

    const create = doc.paths['/v1/data/project']!.post!;
    expect(JSON.stringify((create.requestBody as any).content['application/json'].schema)).to.include('ProjectCreate');
    expect(Object.keys(create.responses)).to.include.members(['201', '400', '403', '409']);
    const one = doc.paths['/v1/data/project/{id}']!;
    expect(JSON.stringify(one.patch!.requestBody)).to.include('#/components/schemas/ProjectUpdate"');
    expect((one.get!.parameters as Array<{ name: string; in: string }>).map((p) => `${p.in}:${p.name}`)).to.deep.equal([
      'path:id',
      'query:fields',
      'query:expand',
    ]);
    expect(Object.keys(one.delete!.responses)).to.include.members(['200', '403', '404']);
    const ids = Object.values(doc.paths)
      .flatMap((item) => Object.values(item ?? {}).map((op: any) => op.operationId))
      .filter(Boolean);
    expect(new Set(ids).size, 'operationIds are unique').to.equal(ids.length);
  });
});

describe('REST in the served OpenAPI document', () => {
  let s: TestServer | undefined;
  before(async function () {
    if (!existsSync(resolve(__dirname, '../../../plugins/openapi/index.ts'))) this.skip();
    s = await startServer({ plugins: { rpc: true, rest: true, openapi: true } });
  });
  after(async () => {
    await s?.stop();
  });

  it('is valid and holds every REST path', async () => {
    const res = await s!.request('GET', `${s!.kernel.config.routes.rpc}/openapi.json`);
    expect(res.status).to.equal(200);
    await SwaggerParser.validate(structuredClone(res.body));
    for (const path of ['/api/data/task', '/api/data/task/{id}', '/api/data/task/bulk-update', '/api/data/task/bulk-delete'])
      expect(res.body.paths).to.have.property(path);
  });
});
