/**
 * The served document under Redocly's `recommended-strict` ruleset (what `redocly lint
 * --extends=recommended-strict` runs): no problem at all, with every plugin that adds to the
 * document, and with the JSON-RPC route alone (where no REST route uses the object schemas).
 */
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { expect } from 'chai';
import { startServer, type TestServer } from '../../helpers/server';
import { parseOpenApiOptions } from '../../../plugins/openapi/options';
import { protocolPlugins } from './helpers';

const DOC = '/api/objectql/openapi.json';

async function lintServed(s: TestServer): Promise<string[]> {
  const res = await s.request('GET', DOC);
  expect(res.status).to.equal(200);
  const config = await createConfig({ extends: ['recommended-strict'] });
  const problems: NormalizedProblem[] = await lintFromString({
    source: JSON.stringify(res.body),
    absoluteRef: 'openapi.json',
    config,
  });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
}

describe('OpenAPI document under Redocly recommended-strict', () => {
  const configs: Record<string, Record<string, boolean | Record<string, unknown>>> = {
    'every plugin that adds to the document': {
      ...protocolPlugins(),
      auth: { jwt: { secret: 'a-test-secret-of-more-than-32-characters' } },
      'rate-limit': {},
    },
    'JSON-RPC alone': { rpc: true, openapi: true },
  };
  for (const [name, plugins] of Object.entries(configs)) {
    it(`reports no problem: ${name}`, async () => {
      const s = await startServer({ plugins });
      try {
        expect(await lintServed(s)).to.deep.equal([]);
      } finally {
        await s.stop();
      }
    });
  }

  it('declares the license from package.json (SPDX id linked), or the one given in the options', async () => {
    const s = await startServer({ plugins: { rpc: true, openapi: { license: { name: 'Custom', url: 'https://example.org/terms' } } } });
    try {
      expect((await s.request('GET', DOC)).body.info.license).to.deep.equal({ name: 'Custom', url: 'https://example.org/terms' });
    } finally {
      await s.stop();
    }
    const d = await startServer({ plugins: { rpc: true, openapi: true } });
    try {
      expect((await d.request('GET', DOC)).body.info.license).to.deep.equal({ name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' });
    } finally {
      await d.stop();
    }
  });

  it('refuses a license option without a name or with a URL that is not http(s), naming the key', () => {
    expect(() => parseOpenApiOptions({ license: { name: '', url: 'https://example.org' } })).to.throw(/license\.name/);
    expect(() => parseOpenApiOptions({ license: { name: 'X', url: 'ftp://example.org/x' } })).to.throw(/license\.url/);
  });
});
