/**
 * Security headers and CORS over real HTTP (kernel/http/security.ts) on a server with the built-in
 * protocols: on by default / off by default on data routes and errors, the API docs page keeping
 * its own CSP, preflights answered before authentication. The settings alone (headers off, HSTS,
 * config checks): test/kernel/http/security.test.ts.
 */
import { expect } from 'chai';
import type { ObjectQLConfig } from '../../../kernel';
import { API_CSP } from '../../../kernel/http/security';
import { DOCS_CSP } from '../../../plugins/openapi/docs-page';
import { startServer, USERS, type TestServer } from '../../helpers/server';

const CARE = { 'x-test-user': JSON.stringify(USERS.carol) };

async function withServer(
  security: ObjectQLConfig['security'],
  fn: (s: TestServer) => Promise<void>,
  plugins: ObjectQLConfig['plugins'] = { rpc: true, rest: true },
): Promise<void> {
  const s = await startServer({ plugins, security }, { identityFromHeader: true });
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

describe('HTTP security headers', () => {
  it('are on every response by default: data, errors, unknown routes, health', async () => {
    await withServer(undefined, async (s) => {
      const responses = [
        await s.request('GET', '/api/data/account', undefined, CARE),
        await s.request('GET', '/api/data/project'), // 401, anonymous
        await s.request('GET', '/no/such/route'),
        await s.request('GET', '/health'),
        await s.rpc({ op: 'count', object: 'account' }),
      ];
      for (const res of responses) {
        const h = res.headers;
        expect(h.get('content-security-policy'), `${res.status}`).to.equal(API_CSP);
        expect(h.get('x-content-type-options')).to.equal('nosniff');
        expect(h.get('x-frame-options')).to.equal('DENY');
        expect(h.get('referrer-policy')).to.equal('no-referrer');
        expect(h.get('cross-origin-resource-policy')).to.equal('same-origin');
        expect(h.get('x-powered-by')).to.equal(null);
        expect(h.get('strict-transport-security'), 'no HSTS unless configured').to.equal(null);
      }
      expect(responses.map((r) => r.status)).to.deep.equal([200, 401, 404, 200, 200]);
    });
  });

  it('leave the API docs page its own CSP, and its assets load', async () => {
    await withServer(
      undefined,
      async (s) => {
        const page = await s.request('GET', '/api/objectql/docs');
        expect(page.status).to.equal(200);
        expect(page.headers.get('content-security-policy')).to.equal(DOCS_CSP);
        expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
        for (const asset of ['swagger-ui.css', 'objectql-swagger-init.js', 'swagger-ui-bundle.js']) {
          expect((await s.request('GET', `/api/objectql/docs/${asset}`)).status, asset).to.equal(200);
        }
        const doc = await s.request('GET', '/api/objectql/openapi.json');
        expect(doc.headers.get('content-security-policy')).to.equal(API_CSP);
      },
      { rpc: true, openapi: true },
    );
  });
});

describe('CORS', () => {
  const preflight = (s: TestServer, origin: string, path = '/api/data/project') =>
    s.request('OPTIONS', path, undefined, {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    });

  it('is off by default: no Access-Control headers, whatever the Origin', async () => {
    await withServer(undefined, async (s) => {
      const res = await s.request('GET', '/api/data/account', undefined, { ...CARE, origin: 'https://evil.example' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      expect((await preflight(s, 'https://evil.example')).headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  it('true: any origin, no credentials; preflights answered before authentication; X-Request-Id and X-RateLimit-* exposed', async () => {
    await withServer({ cors: true }, async (s) => {
      const res = await s.request('GET', '/api/data/account', undefined, { ...CARE, origin: 'https://app.example' });
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      const exposed = res.headers.get('access-control-expose-headers')!.split(',');
      expect(exposed).to.include.members([
        'X-Request-Id',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
      ]);
      // project needs an identity; its preflight does not.
      const pre = await preflight(s, 'https://app.example');
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal('*');
      expect(pre.headers.get('access-control-allow-methods')).to.include('POST');
      expect(pre.headers.get('access-control-allow-headers')).to.equal('authorization,content-type');
      expect(res.headers.get('cross-origin-resource-policy'), 'other origins may use the responses').to.equal('cross-origin');
    });
  });

  it('a list of origins: only those, with credentials, max age and extra exposed headers', async () => {
    const cors = { origin: ['https://a.example', 'http://localhost:5173'], credentials: true, maxAge: 600, exposedHeaders: ['X-Custom'] };
    await withServer({ cors }, async (s) => {
      const ok = await s.request('GET', '/api/data/account', undefined, { ...CARE, origin: 'http://localhost:5173' });
      expect(ok.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
      expect(ok.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(ok.headers.get('vary')).to.match(/Origin/);
      expect(ok.headers.get('access-control-expose-headers')!.split(',')).to.include.members(['X-Request-Id', 'X-Custom']);
      const other = await s.request('GET', '/api/data/account', undefined, { ...CARE, origin: 'https://evil.example' });
      expect(other.status, 'the browser, not the server, blocks it').to.equal(200);
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      const pre = await preflight(s, 'https://a.example');
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal('https://a.example');
      expect(pre.headers.get('access-control-max-age')).to.equal('600');
      expect((await preflight(s, 'https://evil.example')).headers.get('access-control-allow-origin')).to.equal(null);
    });
  });
});
