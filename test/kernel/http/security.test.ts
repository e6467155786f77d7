/**
 * Security headers over real HTTP on a kernel alone (kernel/http/security.ts): what turning them
 * off and HSTS change, and the config checks of headers and CORS. With the built-in protocols (data
 * routes, errors, the docs page, CORS): test/server/http/security.test.ts.
 */
import { expect } from 'chai';
import { ConfigError, resolveConfig, type ObjectQLConfig } from '../../../kernel';
import { API_CSP } from '../../../kernel/http/security';
import { startBareKernel, type BareKernel } from '../bare-kernel';

async function withServer(security: ObjectQLConfig['security'], fn: (s: BareKernel) => Promise<void>): Promise<void> {
  const s = await startBareKernel({ security });
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

describe('HTTP security headers (kernel alone)', () => {
  it("are on by default on the kernel's own answers: health, discovery, an unknown route", async () => {
    await withServer(undefined, async (s) => {
      const responses = [
        await s.request('GET', '/health'),
        await s.request('GET', '/.well-known/objectql'),
        await s.request('GET', '/nowhere'),
      ];
      expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 404]);
      for (const { headers: h, status } of responses) {
        expect(h.get('content-security-policy'), `${status}`).to.equal(API_CSP);
        expect(h.get('x-content-type-options')).to.equal('nosniff');
        expect(h.get('x-frame-options')).to.equal('DENY');
        expect(h.get('x-powered-by')).to.equal(null);
        expect(h.get('strict-transport-security'), 'no HSTS unless configured').to.equal(null);
      }
    });
  });

  it('are off with headers: false', async () => {
    await withServer({ headers: false }, async (s) => {
      const h = (await s.request('GET', '/health')).headers;
      for (const name of [
        'content-security-policy',
        'x-frame-options',
        'referrer-policy',
        'x-content-type-options',
        'strict-transport-security',
      ])
        expect(h.get(name), name).to.equal(null);
      expect(h.get('x-request-id')).to.be.a('string');
    });
  });

  it('add HSTS only when configured (behind TLS)', async () => {
    await withServer({ hsts: true }, async (s) => {
      expect((await s.request('GET', '/health')).headers.get('strict-transport-security')).to.equal('max-age=31536000; includeSubDomains');
    });
    await withServer({ hsts: { maxAge: 600, includeSubDomains: false } }, async (s) => {
      expect((await s.request('GET', '/health')).headers.get('strict-transport-security')).to.equal('max-age=600');
    });
    await withServer({ hsts: { maxAge: 63072000, preload: true } }, async (s) => {
      expect((await s.request('GET', '/health')).headers.get('strict-transport-security')).to.equal(
        'max-age=63072000; includeSubDomains; preload',
      );
    });
  });
});

describe('CORS settings', () => {
  it('refuses settings a browser would reject, naming the key', () => {
    const bad: Array<[unknown, string]> = [
      [{ origin: '*', credentials: true }, 'security.cors.credentials'],
      [{ origin: ['https://a.example', '*'], credentials: true }, 'security.cors.credentials'],
      [{ origin: 'https://a.example/app' }, 'security.cors'],
      [{ origin: 'a.example' }, 'security.cors'],
      [{ origin: [] }, 'security.cors'],
      [{ origins: 'https://a.example' }, 'security.cors'],
      [{ origin: 'https://a.example', exposedHeaders: ['Bad Header'] }, 'security.cors'],
    ];
    for (const [cors, key] of bad) {
      expect(() => resolveConfig({ security: { cors } }), JSON.stringify(cors)).to.throw(ConfigError, key);
    }
    expect(() => resolveConfig({ security: { hsts: { maxAge: 0 } } })).to.throw(ConfigError, 'security.hsts');
    expect(resolveConfig({ security: { cors: { origin: 'https://a.example:8443' } } }).security.cors).to.deep.equal({
      origin: 'https://a.example:8443',
    });
  });
});
