/**
 * Secrets stay secret (kernel/logger.ts, kernel/http/security.ts) on a server with the built-in
 * protocols: credentials never come back in a response, even when a plugin's error names them; the
 * log redacts credential headers and secret fields whatever a plugin logs; and an oversized body is
 * refused in the spec's error shape on every protocol. The rules themselves: test/kernel/http/secrets.test.ts.
 */
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { ObjectQLError, type Plugin } from '../../../kernel';
import { REDACT_CENSOR } from '../../../kernel/logger';
import { startServer, USERS, type TestServer } from '../../helpers/server';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.garbage-token-value.c2lnbmF0dXJl';
const API_KEY = 'oql_live_0123456789abcdef';
const SESSION = 'sess-9f8e7d6c5b4a';
const CREDENTIALS = { authorization: `Bearer ${TOKEN}`, 'x-api-key': API_KEY, cookie: `theme=dark; session_id=${SESSION}` };

function expectNoSecret(res: { body: unknown; headers: Headers }, what: string): void {
  const text = JSON.stringify(res.body) + JSON.stringify([...res.headers.entries()]);
  for (const secret of [TOKEN, API_KEY, SESSION]) expect(text, `${what} echoes a credential`).not.to.include(secret);
}

/** An authentication plugin that names the credential it refuses (when asked to, by X-Careless). */
const careless: Plugin = {
  name: 'careless-auth',
  register(k) {
    k.hooks.authenticate.tapPromise('careless-auth', (req) => {
      if (!req.headers['x-careless']) return Promise.resolve(undefined);
      return Promise.reject(
        new ObjectQLError('UNAUTHORIZED', `Token ${req.headers.authorization} rejected`, {
          token: String(req.headers.authorization).slice(7),
          key: req.headers['x-api-key'],
        }),
      );
    });
  },
};

/** A plugin route that logs credentials and secrets the way a careless plugin might. */
const leaky: Plugin = {
  name: 'leaky',
  register(k) {
    k.hooks.routes.tapPromise('leaky', (router) => {
      router.post('/leaky', (req, res) => {
        req.log.info(
          {
            req: { method: req.method, headers: req.headers },
            user: { id: 'u1', password: 'hunter2-password' },
            token: TOKEN,
            key: { keyHash: 'sha256-of-the-key' },
          },
          'leaky route',
        );
        req.log.warn({ res: { headers: { 'set-cookie': [`session_id=${SESSION}`] } }, secret: 'shh-its-a-secret' }, 'leaky response');
        res.json({ ok: true });
      });
      return Promise.resolve();
    });
  },
};

describe('credentials are never echoed', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ plugins: { rpc: true, rest: true, metadata: true } }, { use: [careless] });
  });
  after(async () => {
    await s?.stop();
  });

  it('garbage credentials on data, metadata and unknown routes: no trace of them in body or headers', async () => {
    for (const [method, path] of [
      ['GET', '/api/data/project'],
      ['GET', '/api/data/project/prj-apollo'],
      ['PUT', '/api/metadata/object/project'],
      ['GET', '/nowhere'],
    ]) {
      const res = await s.request(method, path, method === 'PUT' ? { label: 'x' } : undefined, CREDENTIALS);
      expect(res.status, `${method} ${path}`).to.be.oneOf([401, 404]);
      expect(res.body.error.code).to.be.a('string');
      expectNoSecret(res, `${method} ${path}`);
    }
    const rpc = await s.rpc({ op: 'find', object: 'project', args: {} }, CREDENTIALS);
    expect(rpc.status).to.equal(401);
    expect(rpc.headers.get('www-authenticate'), 'a 401 names the scheme').to.equal('Bearer');
    expectNoSecret(rpc, 'JSON-RPC');
  });

  it('an error a plugin wrote with the credential in it comes back with the credential replaced', async () => {
    const res = await s.request('GET', '/api/data/account', undefined, { ...CREDENTIALS, 'x-careless': '1' });
    expect(res.status).to.equal(401);
    expect(res.body.error.message).to.equal('Token [redacted] rejected');
    expect(res.body.error.details).to.deep.equal({ token: '[redacted]', key: '[redacted]' });
    expectNoSecret(res, 'careless plugin');
  });
});

describe('the log', () => {
  it('redacts credential headers and secret fields, whatever a plugin logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const s = await startServer({ plugins: { rpc: true }, logLevel: 'info' }, { use: [leaky], logDestination: stream });
    try {
      const res = await s.request('POST', '/leaky', { password: 'in-the-body' }, CREDENTIALS);
      expect(res.status).to.equal(200);
      expect((await s.rpc({ op: 'find', object: 'project', args: {} }, CREDENTIALS)).status).to.equal(401);
    } finally {
      await s.stop();
    }
    const log = lines.join('');
    for (const secret of [TOKEN, API_KEY, SESSION, 'hunter2-password', 'sha256-of-the-key', 'shh-its-a-secret'])
      expect(log, secret).not.to.include(secret);
    const leaked = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'leaky route');
    expect(leaked.req.headers).to.include({
      authorization: REDACT_CENSOR,
      'x-api-key': REDACT_CENSOR,
      cookie: REDACT_CENSOR,
      'content-type': 'application/json',
    });
    expect(leaked.user).to.deep.equal({ id: 'u1', password: REDACT_CENSOR });
    expect(leaked.token).to.equal(REDACT_CENSOR);
    expect(leaked.key).to.deep.equal({ keyHash: REDACT_CENSOR });
    expect(
      lines.filter((l) => l.includes('request completed')),
      'the request lines are still written',
    ).to.have.length(2);
  });
});

describe('request body size', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer(
      { plugins: { rpc: true, rest: true }, limits: { maxBodyBytes: 1024 }, security: { allowBodyUser: true } },
      { identityFromHeader: true },
    );
  });
  after(async () => {
    await s?.stop();
  });

  it("a body above limits.maxBodyBytes is INVALID_REQUEST (400) in the spec's error shape, on every protocol", async () => {
    const big = { name: 'x'.repeat(2000) };
    const admin = { 'x-test-user': JSON.stringify(USERS.admin) };
    for (const res of [
      await s.rpc({ op: 'create', object: 'account', args: big }, admin),
      await s.request('POST', '/api/data/account', big, admin),
      await s.request('PUT', '/api/data/account/acc-acme', big, admin),
    ]) {
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(Object.keys(res.body)).to.deep.equal(['error']);
      expect(res.body.error.code).to.equal('INVALID_REQUEST');
      expect(res.body.error.message).to.equal('Request body is larger than the limit of 1024 bytes');
    }
    // Just under the limit passes the parser (and is then handled as usual: a name is short text).
    const fits = await s.request('POST', '/api/data/account', { name: 'x'.repeat(900) }, admin);
    expect(fits.status, JSON.stringify(fits.body)).to.equal(400);
    expect(fits.body.error).to.deep.include({ code: 'VALIDATION_ERROR' });
    expect(fits.body.error.details.fields).to.have.property('name');
  });
});
