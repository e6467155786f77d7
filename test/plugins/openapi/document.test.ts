/**
 * Unit tests, no I/O: the document cache (built once, rebuilt only when the metadata's revision
 * moves), schema name clashes, and the kernel's field schemas for the edge cases an
 * OpenAPI 3.0.3 document must get right (nullable beside a type, nullable enums, empty enums).
 */
import { expect } from 'chai';
import { type FieldDefinition, type ObjectDefinition } from '../../../kernel';
import { fieldSchema, objectSchemas } from '../../../kernel/protocol';
import { DocumentCache } from '../../../plugins/openapi/cache';
import { baseDocument, schemaNameClashes } from '../../../plugins/openapi/document';

function object(name: string, fields: Partial<FieldDefinition>[] = []): ObjectDefinition {
  const all = [{ name: 'id', type: 'text', label: 'ID', system: true }, ...fields].map((f) => ({ label: f.name, ...f }) as FieldDefinition);
  return {
    name,
    label: name,
    datasource: 'default',
    fields: Object.fromEntries(all.map((f) => [f.name, f])),
    indexes: [],
    actions: {},
    rules: [],
    hooks: [],
  };
}

const SETTINGS = {
  title: 'T',
  version: '1.0.0',
  documentPath: '/api/objectql/openapi.json',
  docsPath: '/api/objectql/docs',
  anonymous: true,
};

describe('OpenAPI document cache', () => {
  it('builds once, and again only when the metadata revision moved', () => {
    const defs = [object('book'), object('author')];
    let revision = 0;
    const cache = new DocumentCache(
      () => revision,
      () => baseDocument(SETTINGS, defs),
    );
    const first = cache.get();
    expect(cache.get()).to.equal(first);
    expect(cache.buildCount).to.equal(1);
    // What the registry does on a run-time change: the definition changes and the revision goes up.
    defs[0].description = 'Books';
    revision += 1;
    const second = cache.get();
    expect(cache.buildCount).to.equal(2);
    expect(second.etag).to.not.equal(first.etag);
    expect(JSON.parse(second.json).components.schemas.Book.description).to.equal('Books');
    revision += 1;
    cache.get();
    cache.get();
    expect(cache.buildCount).to.equal(3);
  });

  it('does not cache a failed build', () => {
    let fail = true;
    const cache = new DocumentCache(
      () => 0,
      () => {
        if (fail) throw new Error('tap failed');
        return baseDocument(SETTINGS, []);
      },
    );
    expect(() => cache.get()).to.throw('tap failed');
    fail = false;
    expect(JSON.parse(cache.get().json).openapi).to.equal('3.0.3');
  });
});

describe('OpenAPI schema names', () => {
  it('reports objects whose schema names clash with each other or with a shared schema', () => {
    expect(schemaNameClashes([object('book'), object('author')])).to.deep.equal([]);
    expect(schemaNameClashes([object('order_line'), object('orderLine')])[0])
      .to.include("'OrderLine'")
      .and.include("object 'order_line'");
    expect(schemaNameClashes([object('error')])[0])
      .to.include("'Error'")
      .and.include('shared schema');
    expect(schemaNameClashes([object('book'), object('book_create')])[0]).to.include("'BookCreate'");
    expect(schemaNameClashes([object('book'), object('book_partial')])[0]).to.include("'BookPartial'");
    expect(schemaNameClashes([object('group_row')])[0]).to.include("'GroupRow'");
    expect(() => baseDocument(SETTINGS, [object('page_meta')])).to.throw(/PageMeta/);
  });
});

describe('kernel field schemas (OpenAPI 3.0.3 rules)', () => {
  const schemas = objectSchemas(
    object('thing', [
      { name: 'data', type: 'json' },
      { name: 'calc', type: 'formula' },
      { name: 'kind', type: 'select', options: [{ label: 'A', value: 'a' }] },
      { name: 'must', type: 'select', required: true, options: [{ label: 'A', value: 'a' }] },
      { name: 'free', type: 'select', options: [] },
      { name: 'photo', type: 'image' },
    ]),
  );
  const record = schemas.Thing.properties!;
  const input = schemas.ThingCreate.properties!;
  const update = schemas.ThingUpdate.properties!;

  it('puts nullable only beside a type (a typeless json schema already allows null)', () => {
    expect(record.data).to.not.have.property('nullable');
    expect(input.data).to.not.have.property('nullable');
    expect(record.calc).to.deep.include({ readOnly: true }).and.not.have.property('nullable');
    expect(input).to.not.have.property('calc');
  });

  it('lists null in a nullable enum, not in a required one, and never writes an empty enum', () => {
    expect(record.kind).to.deep.include({ nullable: true, enum: ['a', null] });
    expect(input.kind).to.deep.include({ nullable: true, enum: ['a', null] });
    expect(record.must)
      .to.deep.include({ enum: ['a'] })
      .and.not.have.property('nullable');
    expect(input.must).to.not.have.property('nullable');
    expect(update.must).to.not.have.property('nullable');
    expect(schemas.ThingCreate.required).to.deep.equal(['must']);
    expect(schemas.ThingUpdate).to.not.have.property('required');
    expect(record.free).to.not.have.property('enum');
  });

  it('gives a fresh attachment schema on every call (no shared mutable module state)', () => {
    const a = fieldSchema({ name: 'p', type: 'image', label: 'P' });
    (a.properties as Record<string, unknown>).injected = {};
    expect(fieldSchema({ name: 'p', type: 'image', label: 'P' }).properties).to.not.have.property('injected');
    expect(record.photo).to.deep.include({ type: 'object', nullable: true });
  });
});
