/** The OData plugin's pure parts: resource paths and keys, ETags, format negotiation, error bodies, options. */
import { expect } from 'chai';
import { ObjectQLError, PluginError, validationError } from '../../../kernel';
import { escapeXml } from '../../../plugins/odata/edmx';
import { odataErrorBody } from '../../../plugins/odata/errors';
import { etagMatches, etagOf, parseEntityTags } from '../../../kernel/protocol';
import { metadataLevel } from '../../../plugins/odata/format';
import { parseOptions } from '../../../plugins/odata/options';
import { parsePath, parseUrl } from '../../../plugins/odata/resource-path';

function fails(fn: () => unknown, code: string, text?: string): ObjectQLError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ObjectQLError);
    expect((err as ObjectQLError).code).to.equal(code);
    if (text) expect((err as ObjectQLError).message).to.include(text);
    return err as ObjectQLError;
  }
  throw new Error('expected a failure');
}

describe('OData resource paths', () => {
  it('names the service document, $metadata, $batch, sets, $count, entities and properties', () => {
    expect(parsePath('')).to.deep.equal({ kind: 'serviceDocument' });
    expect(parsePath('/')).to.deep.equal({ kind: 'serviceDocument' });
    expect(parsePath('/$metadata')).to.deep.equal({ kind: 'metadata' });
    expect(parsePath('/$batch')).to.deep.equal({ kind: 'batch' });
    expect(parsePath('/project')).to.deep.equal({ kind: 'collection', set: 'project' });
    expect(parsePath('/project/')).to.deep.equal({ kind: 'collection', set: 'project' });
    expect(parsePath('/project/$count')).to.deep.equal({ kind: 'count', set: 'project' });
    expect(parsePath("/project('p1')")).to.deep.equal({ kind: 'entity', set: 'project', key: 'p1' });
    expect(parsePath("/project(id='p1')")).to.deep.equal({ kind: 'entity', set: 'project', key: 'p1' });
    expect(parsePath("/project('p1')/name")).to.deep.equal({ kind: 'property', set: 'project', key: 'p1', property: 'name' });
  });

  it('reads quoted keys: doubled quotes, percent-encoding, parentheses and slashes inside', () => {
    expect(parsePath("/account('o''brien')")).to.deep.include({ key: "o'brien" });
    expect(parsePath("/account('a%20b')")).to.deep.include({ key: 'a b' });
    expect(parsePath('/account(%27x%27)')).to.deep.include({ key: 'x' });
    expect(parsePath("/account('f(x)')")).to.deep.include({ key: 'f(x)' });
    expect(parsePath("/account('a%2Fb')")).to.deep.include({ key: 'a/b' });
  });

  it('answers a malformed key with INVALID_REQUEST naming the segment', () => {
    for (const bad of [
      '/project(p1)',
      "/project('p1)",
      "/project('it's')",
      '/project()',
      "/project('')",
      "/project(name='x')",
      "/project('a')('b')",
      '/project(1)',
    ]) {
      const err = fails(() => parsePath(bad), 'INVALID_REQUEST', 'Malformed key');
      expect(err.details).to.be.an('array').with.length(1);
    }
  });

  it('answers shapes it does not serve with NOT_FOUND', () => {
    for (const path of [
      '/$foo',
      '/$metadata/x',
      '/project/$ref',
      '/project/x',
      "/project('a')/b/c",
      "/project('a')/$value",
      '/1abc',
      '/pro-ject',
    ]) {
      fails(() => parsePath(path, '/odata'), 'NOT_FOUND', '/odata');
    }
    fails(() => parsePath('/project%E0%A4%A'), 'INVALID_REQUEST', 'percent-encoding');
  });

  it('splits the query', () => {
    const { resource, query } = parseUrl('/project?$top=2&$select=name', '/odata');
    expect(resource).to.deep.equal({ kind: 'collection', set: 'project' });
    expect([...query]).to.deep.equal([
      ['$top', '2'],
      ['$select', 'name'],
    ]);
  });
});

describe('OData ETags', () => {
  it('derives a weak ETag from updated_at, else created_at', () => {
    expect(etagOf({ updated_at: '2025-01-02T03:04:05.678Z', created_at: '2024-01-01T00:00:00.000Z' })).to.equal(
      'W/"2025-01-02T03:04:05.678Z"',
    );
    expect(etagOf({ created_at: '2024-01-01T00:00:00Z' })).to.equal('W/"2024-01-01T00:00:00.000Z"');
    expect(etagOf({ id: 'x' })).to.equal(undefined);
    expect(etagOf({ updated_at: 'not a date' })).to.equal(undefined);
  });

  it('matches If-Match / If-None-Match values weakly; * matches any entity', () => {
    const etag = 'W/"2025-01-02T03:04:05.678Z"';
    expect(etagMatches(parseEntityTags('*')!, etag)).to.equal(true);
    expect(etagMatches(parseEntityTags(etag)!, etag)).to.equal(true);
    expect(etagMatches(parseEntityTags('"2025-01-02T03:04:05.678Z"')!, etag)).to.equal(true);
    expect(etagMatches(parseEntityTags(`W/"other", ${etag}`)!, etag)).to.equal(true);
    expect(etagMatches(parseEntityTags('W/"other"')!, etag)).to.equal(false);
    expect(etagMatches(parseEntityTags('garbage')!, etag)).to.equal(false);
    expect(etagMatches(parseEntityTags(etag)!, undefined)).to.equal(false);
    expect(parseEntityTags(undefined)).to.equal(undefined);
  });
});

describe('OData format negotiation', () => {
  it('reads odata.metadata from Accept and $format ($format wins)', () => {
    expect(metadataLevel(undefined, null)).to.equal('minimal');
    expect(metadataLevel('application/json', null)).to.equal('minimal');
    expect(metadataLevel('application/json;odata.metadata=none', null)).to.equal('none');
    expect(metadataLevel('application/json; odata.metadata=minimal', null)).to.equal('minimal');
    expect(metadataLevel('application/json;odata.metadata=full', null)).to.equal('minimal');
    expect(metadataLevel('text/html, application/json;odata.metadata=none;q=0.9', null)).to.equal('none');
    expect(metadataLevel('application/json;odata.metadata=none', 'json')).to.equal('minimal');
    expect(metadataLevel(undefined, 'application/json;odata.metadata=none')).to.equal('none');
    fails(() => metadataLevel(undefined, 'xml'), 'INVALID_REQUEST', '$format');
  });
});

describe('OData error bodies', () => {
  it('turns validation fields into details, REQUIRED_FIELD for a missing one, and keeps the kernel details as innererror', () => {
    const body = odataErrorBody(validationError({ name: 'is required', budget: 'must be at least 0' }));
    expect(body.error.code).to.equal('VALIDATION_ERROR');
    expect(body.error.details).to.deep.equal([
      { code: 'REQUIRED_FIELD', message: 'name: is required', target: 'name' },
      { code: 'VALIDATION_ERROR', message: 'budget: must be at least 0', target: 'budget' },
    ]);
    expect(body.error.innererror).to.deep.equal({ fields: { name: 'is required', budget: 'must be at least 0' } });
  });

  it('keeps permission details (required_permission, user_roles) and names the object or field as target', () => {
    const body = odataErrorBody(
      new ObjectQLError('FORBIDDEN', 'Not allowed', {
        required_permission: 'allow_edit',
        object: 'project',
        field: 'budget',
        user_roles: ['member'],
      }),
    );
    expect(body.error.details).to.deep.equal([{ code: 'FORBIDDEN', message: 'Not allowed', target: 'budget' }]);
    expect(body.error.innererror).to.deep.include({ required_permission: 'allow_edit', user_roles: ['member'] });
    expect(odataErrorBody(new ObjectQLError('NOT_FOUND', 'x', { object: 'p' })).error.details).to.deep.equal([
      { code: 'NOT_FOUND', message: 'x', target: 'p' },
    ]);
  });

  it('passes OData details through and gives an empty list when there are none', () => {
    const details = [{ code: 'INVALID_REQUEST', message: 'bad', target: '$filter' }];
    expect(odataErrorBody(new ObjectQLError('INVALID_REQUEST', 'bad', details)).error).to.deep.equal({
      code: 'INVALID_REQUEST',
      message: 'bad',
      details,
    });
    expect(odataErrorBody(new ObjectQLError('INTERNAL_ERROR', 'Internal server error')).error).to.deep.equal({
      code: 'INTERNAL_ERROR',
      message: 'Internal server error',
      details: [],
    });
  });
});

describe('OData options', () => {
  it('has the spec defaults', () => {
    expect(parseOptions({})).to.deep.equal({
      basePath: '/odata',
      maxExpandDepth: 3,
      enableBatch: true,
      enableSearch: true,
      enableETags: true,
      maxExpressionLength: 4096,
    });
    expect(parseOptions(undefined)).to.have.property('basePath', '/odata');
  });

  it('names each wrong key', () => {
    const message = (options: unknown) => {
      try {
        parseOptions(options);
      } catch (err) {
        expect(err).to.be.instanceOf(PluginError);
        return (err as Error).message;
      }
      throw new Error('expected a failure');
    };
    expect(message({ basePath: 'odata' }))
      .to.include('basePath')
      .and.include("'/odata'");
    expect(message({ basePath: '/odata/' })).to.include('basePath');
    expect(message({ basePath: '/od ata' })).to.include('basePath');
    expect(message({ port: 70000 })).to.include('port must be between 0 and 65535');
    expect(message({ port: '80' })).to.include('port must be a port number');
    expect(message({ maxExpandDepth: 0 })).to.include('maxExpandDepth must be at least 1');
    expect(message({ enableBatch: 'yes' })).to.include('enableBatch must be true or false');
    expect(message({ enableEtags: true })).to.include("unknown option 'enableEtags'");
    expect(message('x')).to.include('options must be an object');
  });
});

describe('OData XML escaping', () => {
  it('escapes markup and keeps line breaks as references', () => {
    expect(escapeXml(`a<b>&"c"'d'\n\u0001`)).to.equal('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;&#10;');
  });
});
