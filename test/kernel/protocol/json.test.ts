import { expect } from 'chai';
import { ObjectQLError, type FieldDefinition } from '../../../kernel';
import { assertJsonBody, decodeJsonFields, isJsonContentType, jsonBodyProblem, toJsonText } from '../../../kernel/protocol';

describe('protocol layer: JSON bodies', () => {
  it('knows JSON content types: application/json and application/*+json, with parameters', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/merge-patch+json']) {
      expect(isJsonContentType(type), type).to.equal(true);
    }
    for (const type of [undefined, '', 'text/plain', 'application/jsonx', 'multipart/form-data; boundary=x', 'application/xml']) {
      expect(isJsonContentType(type), String(type)).to.equal(false);
    }
  });

  it('lets a request without a body pass, and names the content type of a body that is not JSON', () => {
    expect(jsonBodyProblem({})).to.equal(undefined);
    expect(jsonBodyProblem({ 'content-length': '0', 'content-type': 'text/plain' })).to.equal(undefined);
    expect(jsonBodyProblem({ 'content-length': '12', 'content-type': 'application/json' })).to.equal(undefined);
    expect(jsonBodyProblem({ 'content-length': '12', 'content-type': 'text/plain' })).to.equal(
      "Content-Type must be application/json, got 'text/plain'",
    );
    expect(jsonBodyProblem({ 'transfer-encoding': 'chunked' })).to.equal("Content-Type must be application/json, got 'none'");
    expect(() => assertJsonBody({ 'content-length': '3', 'content-type': 'text/csv' }))
      .to.throw(ObjectQLError, "Content-Type must be application/json, got 'text/csv'")
      .with.property('code', 'INVALID_REQUEST');
  });
});

describe('protocol layer: JSON text of JSON-holding fields', () => {
  const fields: Record<string, FieldDefinition> = {
    name: { name: 'name', type: 'text', label: 'Name' },
    settings: { name: 'settings', type: 'json', label: 'Settings' },
    receipt: { name: 'receipt', type: 'file', label: 'Receipt' },
  };

  it('encodes values as JSON text and keeps null', () => {
    expect(toJsonText({ a: 1 })).to.equal('{"a":1}');
    expect(toJsonText([1, 'x'])).to.equal('[1,"x"]');
    expect(toJsonText(null)).to.equal(null);
    expect(toJsonText(undefined)).to.equal(null);
  });

  it('decodes the JSON text of JSON-holding fields only', () => {
    expect(decodeJsonFields({ name: '{"not":"parsed"}', settings: '{"a":1}', receipt: null }, fields)).to.deep.equal({
      name: '{"not":"parsed"}',
      settings: { a: 1 },
      receipt: null,
    });
  });

  it('refuses text that is not JSON with a validation error naming every such field', () => {
    try {
      decodeJsonFields({ settings: '{oops', receipt: 'nope', name: 'x' }, fields);
      expect.fail('should have thrown');
    } catch (err) {
      expect(err).to.be.instanceOf(ObjectQLError);
      expect((err as ObjectQLError).code).to.equal('VALIDATION_ERROR');
      expect((err as ObjectQLError).details).to.deep.equal({
        fields: {
          settings: 'must be JSON text (a json value travels as JSON in a string)',
          receipt: 'must be JSON text (a file value travels as JSON in a string)',
        },
      });
    }
  });
});
