/**
 * The metadata API's contribution to the OpenAPI document, through the kernel's `openapi` hook of
 * a started kernel running only this plugin, under a custom metadata prefix (the openapi plugin's
 * own tests check the served document with every plugin together).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { ERROR_SCHEMA, type OpenAPIDocument } from '../../../kernel/protocol';
import type { TestServer } from '../../helpers/server';
import { startMetadataServer } from './helpers';

const P = '/meta/v1';

function baseDocument(): OpenAPIDocument {
  return {
    openapi: '3.0.3',
    info: { title: 'test', version: '1' },
    paths: {},
    components: { schemas: { Error: ERROR_SCHEMA }, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}

describe('metadata API in the OpenAPI document', () => {
  let s: TestServer;
  let doc: any;

  before(async () => {
    s = await startMetadataServer({ routes: { metadata: P }, plugins: { metadata: true } });
    doc = s.kernel.hooks.openapi.call(baseDocument());
  });
  after(async () => {
    await s?.stop();
  });

  it('is valid and every $ref resolves', async () => {
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('has every route of the spec under the configured prefix, single-object routes under both segments', () => {
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith(P));
    const expected = [`${P}/objects`, `${P}/{type}`, `${P}/{type}/{id}`];
    for (const seg of ['objects', 'object'])
      expected.push(`${P}/${seg}/{name}`, `${P}/${seg}/{name}/fields/{field}`, `${P}/${seg}/{name}/actions`, `${P}/${seg}/{name}/access`);
    expect(paths).to.have.members(expected);
    expect(Object.keys(doc.paths).filter((p) => p.includes('/api/metadata'))).to.deep.equal([]);
    expect(Object.keys(doc.paths[`${P}/object/{name}`])).to.have.members(['get', 'put']);
    expect(Object.keys(doc.paths[`${P}/{type}/{id}`])).to.have.members(['get', 'post']);
  });

  it('describes responses with schemas and the error responses of the kernel', () => {
    const get = doc.paths[`${P}/objects/{name}`].get;
    expect(get.responses['200'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/metadata.Object' });
    expect(get.responses['404'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
    const field = doc.components.schemas['metadata.FieldDescriptor'];
    expect(field.required).to.include.members(['name', 'type', 'label', 'required', 'unique']);
    expect(field.properties.options).to.deep.include({ type: 'array', items: { type: 'string' } });
    expect(doc.components.schemas['metadata.ObjectSummary'].properties.fields).to.have.property('additionalProperties');
    const put = doc.paths[`${P}/object/{name}`].put;
    expect(Object.keys(put.responses)).to.include.members(['200', '400', '401', '403', '404']);
    expect(put.security).to.deep.equal([{ bearer: [] }]);
    expect(get).not.to.have.property('security');
    expect(doc.tags.map((t: any) => t.name)).to.include('Metadata');
  });
});
