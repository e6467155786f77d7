/**
 * The OpenAPI document over real HTTP: it validates, it carries every object's schema by the
 * spec's type mapping, the error and paging schemas, the security schemes, the JSON-RPC route and
 * (when those plugins exist) the REST, metadata and file routes; every route a plugin lists in its
 * capabilities is in it; it is built once and rebuilt when an object's label or description changes.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { ERROR_CODES } from '../../../kernel';
import packageJson from '../../../package.json';
import { startServer, type TestServer } from '../../helpers/server';
import { checkSemantics, hasMetadata, hasRest, protocolPlugins, routeInDocument } from './helpers';

const SAMPLE_OBJECTS = ['account', 'contact', 'expense', 'milestone', 'project', 'task'];
const DOC = '/api/objectql/openapi.json';

describe('OpenAPI document', () => {
  let s: TestServer;
  let doc: any;

  before(async () => {
    s = await startServer({ plugins: protocolPlugins() });
    const res = await s.request('GET', DOC);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    doc = res.body;
  });
  after(async () => {
    await s?.stop();
  });

  it('is a valid OpenAPI 3.0.3 document (swagger-parser) with every $ref resolving', async () => {
    expect(doc.openapi).to.equal('3.0.3');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('passes the checks the JSON schema cannot make: path parameters, unique operation ids, nullable beside a type', () => {
    checkSemantics(doc);
  });

  it('has info (title, version from package.json) and servers [{url: "/"}]', () => {
    expect(doc.info.title).to.equal('ObjectQL API');
    expect(doc.info.version).to.equal(packageJson.version);
    expect(doc.servers).to.deep.equal([{ url: '/' }]);
  });

  it('has <Name>, <Name>Partial, <Name>Create and <Name>Update for every sample object', () => {
    for (const object of SAMPLE_OBJECTS) {
      const name = object[0].toUpperCase() + object.slice(1);
      for (const suffix of ['', 'Partial', 'Create', 'Update']) expect(doc.components.schemas, object).to.have.property(`${name}${suffix}`);
    }
  });

  it('maps field types as the spec says (project)', () => {
    const p = doc.components.schemas.Project;
    expect(p.type).to.equal('object');
    expect(p.required).to.include.members(['id', 'name', 'status']);
    expect(p.required).to.not.include('budget');
    expect(p.properties.name).to.include({ type: 'string' });
    expect(p.properties.budget).to.include({ type: 'number', minimum: 0, nullable: true });
    expect(p.properties.status).to.include({ type: 'string' });
    expect(p.properties.status.enum).to.deep.equal(['planning', 'active', 'on_hold', 'done']);
    expect(p.properties.priority.enum).to.deep.equal(['low', 'medium', 'high', 'urgent', null]); // nullable enum lists null
    expect(p.properties.start_date).to.include({ type: 'string', format: 'date' });
    expect(p.properties.created_at).to.include({ type: 'string', format: 'date-time', readOnly: true });
    expect(p.properties.code).to.include({ type: 'integer', readOnly: true });
    expect(p.properties.account).to.include({ type: 'string' });
    expect(p.properties.tags).to.include({ type: 'array' });
    expect(p.properties.tags.items.enum).to.include('frontend');
    expect(p.properties.settings).to.not.have.property('type'); // json: any value
    expect(p.properties.id).to.include({ type: 'string', readOnly: true });
  });

  it('<Name>Create and <Name>Update hold only writable fields and accept no others', () => {
    for (const input of [doc.components.schemas.ProjectCreate, doc.components.schemas.ProjectUpdate]) {
      expect(input.additionalProperties).to.equal(false);
      expect(input.properties).to.include.keys('name', 'status', 'budget');
      expect(input.properties).to.not.have.any.keys('id', 'code', 'created_at', 'updated_by');
    }
  });

  it('has the Error schema with every code, and PageMeta', () => {
    const error = doc.components.schemas.Error;
    expect(error.required).to.deep.equal(['error']);
    expect(error.properties.error.properties.code.enum).to.have.members(Object.keys(ERROR_CODES));
    expect(doc.components.schemas.PageMeta.required).to.have.members(['total', 'page', 'size', 'pages', 'has_next']);
  });

  it('declares bearer JWT, X-API-Key and session cookie as alternatives, anonymous allowed without auth', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(schemes.apiKey).to.deep.include({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(schemes.sessionCookie).to.deep.include({ type: 'apiKey', in: 'cookie', name: 'session_id' });
    expect(doc.security).to.deep.equal([{ bearerAuth: [] }, { apiKey: [] }, { sessionCookie: [] }, {}]);
  });

  it('has the JSON-RPC route: one request schema per op, per object for the ops carrying field values, object an enum of every object, errors', () => {
    const post = doc.paths['/api/objectql']?.post;
    expect(post, 'POST /api/objectql').to.be.an('object');
    expect(post.requestBody.content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/RpcRequest' });
    const request = doc.components.schemas.RpcRequest;
    const ops = ['find', 'findOne', 'create', 'update', 'delete', 'count', 'action', 'createMany', 'updateMany', 'deleteMany'];
    expect(request.oneOf.map((r: any) => r.$ref)).to.deep.equal(
      ops.map((op) => `#/components/schemas/Rpc${op[0].toUpperCase()}${op.slice(1)}Request`),
    );
    const create = doc.components.schemas.RpcCreateRequest;
    expect(create.discriminator.propertyName).to.equal('object');
    expect(create.discriminator.mapping.task).to.equal('#/components/schemas/RpcCreateTaskRequest');
    expect(doc.components.schemas.RpcCreateTaskRequest.properties.args).to.deep.equal({ $ref: '#/components/schemas/TaskCreate' });
    expect(doc.components.schemas.RpcUpdateTaskRequest.properties.args.properties.data).to.deep.equal({
      $ref: '#/components/schemas/TaskUpdate',
    });
    expect(request.oneOf).to.have.length(10);
    expect(doc.components.schemas.RpcObjectName.enum).to.have.members(SAMPLE_OBJECTS);
    expect(doc.components.schemas.RpcFindRequest.properties.op.enum).to.deep.equal(['find']);
    expect(doc.components.schemas.RpcFindArgs.properties.top).to.include({ maximum: 1000, description: 'default 100' });
    expect(doc.components.schemas.RpcActionName.enum).to.include.members(['close', 'summary']);
    expect(doc.components.schemas.RpcFindResponse.properties.meta).to.deep.equal({ $ref: '#/components/schemas/PageMeta' });
    expect(post.responses['200'].content['application/json'].schema.anyOf).to.have.length(7);
    for (const status of ['400', '401', '403', '404', '409', '500']) {
      expect(post.responses[status]?.content['application/json'].schema, status).to.deep.equal({ $ref: '#/components/schemas/Error' });
    }
  });

  it('lists its own two routes', () => {
    expect(doc.paths[DOC]?.get?.operationId).to.equal('getOpenApiDocument');
    expect(doc.paths['/api/objectql/docs']?.get?.responses['200'].content).to.have.property('text/html');
  });

  it('has the REST routes when the REST plugin is enabled', function () {
    if (!hasRest()) this.skip();
    for (const route of [
      'GET /api/data/:object',
      'POST /api/data/:object',
      'GET /api/data/:object/:id',
      'PUT /api/data/:object/:id',
      'DELETE /api/data/:object/:id',
    ]) {
      expect(routeInDocument(doc, route), route).to.equal(true);
    }
  });

  it('has the metadata routes when the metadata plugin is enabled', function () {
    if (!hasMetadata()) this.skip();
    for (const route of ['GET /api/metadata/objects', 'GET /api/metadata/objects/:name', 'PUT /api/metadata/object/:name']) {
      expect(routeInDocument(doc, route), route).to.equal(true);
    }
  });

  it('has the File API: multipart uploads answering the Attachment schema, downloads with ranges, file error codes', () => {
    const upload = doc.paths['/api/files/upload'].post;
    expect(upload.requestBody.content['multipart/form-data'].schema.required).to.deep.equal(['file']);
    expect(upload.responses['200'].content['application/json'].schema.properties.data).to.deep.equal({
      $ref: '#/components/schemas/Attachment',
    });
    expect(upload.responses['413'].description).to.contain('FILE_TOO_LARGE');
    expect(upload.responses['415'].description).to.contain('FILE_TYPE_NOT_ALLOWED');
    expect(doc.components.schemas.Attachment.required).to.include.members(['name', 'url', 'size', 'type']);
    const download = doc.paths['/api/files/{fileId}'].get;
    expect(Object.keys(download.responses)).to.include.members(['200', '206', '401', '403', '404', '416']);
    expect(doc.paths['/api/files/{fileId}/thumbnail'].get.parameters.map((p: any) => p.name)).to.deep.equal(['fileId', 'size']);
  });

  it('has every route named in the capabilities of every enabled plugin', async () => {
    const discovery = await s.request('GET', '/.well-known/objectql');
    const caps: { plugin: string; routes?: string[] }[] = discovery.body.capabilities;
    expect(caps.map((c) => c.plugin)).to.include.members(['rpc', 'openapi']);
    const missing = caps.flatMap((c) => (c.routes ?? []).filter((r) => !routeInDocument(doc, r)).map((r) => `${c.plugin}: ${r}`));
    expect(missing).to.deep.equal([]);
  });

  it('advertises the document and the docs page in its capability', async () => {
    const discovery = await s.request('GET', '/.well-known/objectql');
    const cap = discovery.body.capabilities.find((c: any) => c.plugin === 'openapi');
    expect(cap).to.deep.include({
      protocol: 'openapi',
      version: '3.0.3',
      document: DOC,
      docs: '/api/objectql/docs',
      routes: [`GET ${DOC}`, 'GET /api/objectql/docs'],
    });
  });
});

describe('OpenAPI document caching', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer({ plugins: { rpc: true, openapi: true } });
  });
  after(async () => {
    await s?.stop();
  });

  it('is built once, answers If-None-Match with 304, and is rebuilt when an object label or description changes', async () => {
    const first = await s.request('GET', DOC);
    const etag = first.headers.get('etag');
    expect(etag).to.match(/^".+"$/);
    const again = await s.request('GET', DOC);
    expect(again.headers.get('etag')).to.equal(etag);
    // fetch adds `cache-control: no-cache` to a conditional request unless one is given, and that forces a full answer.
    const revalidate = { 'if-none-match': etag!, 'cache-control': 'max-age=0' };
    const notModified = await s.request('GET', DOC, undefined, revalidate);
    expect(notModified.status).to.equal(304);

    s.kernel.registry.setObjectInfo('project', { label: 'Engagement', description: 'Renamed at run time' });
    const changed = await s.request('GET', DOC);
    expect(changed.headers.get('etag')).to.not.equal(etag);
    expect(changed.body.components.schemas.Project).to.include({ title: 'Engagement', description: 'Renamed at run time' });
    expect((await s.request('GET', DOC, undefined, revalidate)).status).to.equal(200);
  });

  it('does not rebuild while nothing changed (same body, same ETag on every request)', async () => {
    const a = await s.request('GET', DOC);
    const b = await s.request('GET', DOC);
    expect(b.headers.get('etag')).to.equal(a.headers.get('etag'));
    expect(b.body).to.deep.equal(a.body);
  });
});
