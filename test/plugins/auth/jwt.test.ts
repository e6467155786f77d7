/**
 * Bearer JWTs end to end over real HTTP: HS256 with a secret, RS256 and ES256 with a PEM public
 * key, a JWKS served by a real local HTTP server; every refusal (forged, expired, not yet valid,
 * wrong or `none` algorithm, issuer, audience, malformed) is a 401 that never repeats the token.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { createKernel } from '../../../server';
import { SAMPLE_METADATA, type TestServer } from '../../helpers/server';
import { bearer, expectUnauthorized, hs256, ids, list, SECRET, startAuthServer, token } from './helpers';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** The user context the server built from a credential, as the session route reports it. */
async function whoAmI(s: TestServer, headers: Record<string, string>): Promise<any> {
  const res = await s.request('POST', '/api/auth/session', undefined, headers);
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.data.user;
}

describe('auth: Bearer JWT', () => {
  describe('HS256 with a secret', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({ jwt: { secret: SECRET }, sessions: true });
    });
    after(() => s?.stop());

    it('accepts a valid token, and the permission engine applies to its user', async () => {
      expect(ids(await list(s, 'project', bearer(await hs256())))).to.deep.equal(['prj-apollo', 'prj-mercury']);
      const projects = await list(s, 'project', bearer(await hs256()));
      for (const p of projects.body.items) expect(p).not.to.have.property('actual_cost');
      expect(ids(await list(s, 'project', bearer(await hs256({ sub: 'carol', roles: ['manager'] }))))).to.deep.equal([
        'prj-apollo',
        'prj-gemini',
        'prj-mercury',
      ]);
      // A member may not read expenses at all.
      const expenses = await list(s, 'expense', bearer(await hs256()));
      expect(expenses.status).to.equal(403);
      // The same through JSON-RPC.
      const rpc = await s.rpc(
        { op: 'find', object: 'task', args: { fields: ['id'], sort: [['id', 'asc']] } },
        bearer(await hs256({ sub: 'bob' })),
      );
      expect(rpc.status, JSON.stringify(rpc.body)).to.equal(200);
      expect(rpc.body.items.map((t: { id: string }) => t.id)).to.deep.equal([
        'tsk-apollo-api',
        'tsk-gemini-kickoff',
        'tsk-gemini-research',
      ]);
    });

    it('keeps the other claims as free keys of the user context', async () => {
      const user = await whoAmI(s, bearer(await hs256({ email: 'alice@example.com', tenant: 't1' })));
      expect(user).to.include({ id: 'alice', email: 'alice@example.com', tenant: 't1' });
      expect(user.roles).to.deep.equal(['member']);
      expect(user).not.to.have.property('sub');
    });

    it('refuses a forged signature', async () => {
      const forged = await token(new TextEncoder().encode('another-secret-that-is-long-enough-too'), 'HS256');
      expectUnauthorized(await list(s, 'project', bearer(forged)), 'Bearer token rejected: bad signature', forged);
      // A valid token whose payload was changed (roles raised) keeps its old signature.
      const [h, , sig] = (await hs256()).split('.');
      const tampered = `${h}.${b64({ sub: 'alice', roles: ['admin'], exp: now() + 60 })}.${sig}`;
      expectUnauthorized(await list(s, 'project', bearer(tampered)), 'bad signature', tampered);
    });

    it('refuses an expired token, and one not yet valid', async () => {
      const expired = await hs256({ iat: now() - 7200, exp: now() - 3600 });
      expectUnauthorized(await list(s, 'project', bearer(expired)), 'Bearer token rejected: expired', expired);
      const early = await hs256({ nbf: now() + 3600 });
      expectUnauthorized(await list(s, 'project', bearer(early)), 'Bearer token rejected: not yet valid', early);
    });

    it('accepts exp and nbf within the clock tolerance (30 s by default)', async () => {
      const justExpired = await hs256({ iat: now() - 600, exp: now() - 10 });
      expect((await list(s, 'project', bearer(justExpired))).status).to.equal(200);
      const almostValid = await hs256({ nbf: now() + 10 });
      expect((await list(s, 'project', bearer(almostValid))).status).to.equal(200);
    });

    it("refuses alg 'none' and any algorithm not allowed", async () => {
      const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'root', roles: ['admin'], exp: now() + 60 })}.`;
      expectUnauthorized(await list(s, 'project', bearer(unsigned)), 'Bearer token rejected: algorithm not allowed', unsigned);
      const hs512 = await token(new TextEncoder().encode(SECRET + SECRET), 'HS512');
      expectUnauthorized(await list(s, 'project', bearer(hs512)), 'algorithm not allowed', hs512);
    });

    it('refuses malformed tokens, other schemes and a token without a subject', async () => {
      expectUnauthorized(
        await list(s, 'project', bearer('not-a-jwt-at-all-0123456789')),
        'Bearer token rejected: malformed token',
        'not-a-jwt-at-all-0123456789',
      );
      expectUnauthorized(
        await list(s, 'project', { authorization: 'Basic YWxpY2U6c2VjcmV0LXBhc3N3b3Jk' }),
        'must be "Bearer <token>"',
        'YWxpY2U6c2VjcmV0LXBhc3N3b3Jk',
      );
      expectUnauthorized(await list(s, 'project', { authorization: '' }), 'must be "Bearer <token>"');
      const anonymousToken = await hs256({ sub: undefined });
      expectUnauthorized(await list(s, 'project', bearer(anonymousToken)), "'sub' claim is missing", anonymousToken);
    });

    it('says invalid_token in the challenge of a refused token, and details the reason', async () => {
      const expired = await hs256({ exp: now() - 3600 });
      const res = await list(s, 'project', bearer(expired));
      expect(res.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
      expect(res.body.error.details).to.deep.equal({ credential: 'bearer', reason: 'expired' });
    });
  });

  describe('issuer and audience', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({
        jwt: { secret: SECRET, issuer: 'https://issuer.example', audience: ['objectql', 'other'], clockTolerance: 0 },
      });
    });
    after(() => s?.stop());

    it('accepts the configured issuer and one of the audiences', async () => {
      expect((await list(s, 'project', bearer(await hs256({ iss: 'https://issuer.example', aud: 'objectql' })))).status).to.equal(200);
      expect((await list(s, 'project', bearer(await hs256({ iss: 'https://issuer.example', aud: ['x', 'other'] })))).status).to.equal(200);
    });

    it('refuses another issuer, another audience, or none', async () => {
      const wrongIss = await hs256({ iss: 'https://evil.example', aud: 'objectql' });
      expectUnauthorized(await list(s, 'project', bearer(wrongIss)), 'Bearer token rejected: issuer not accepted', wrongIss);
      const wrongAud = await hs256({ iss: 'https://issuer.example', aud: 'somebody-else' });
      expectUnauthorized(await list(s, 'project', bearer(wrongAud)), 'Bearer token rejected: audience not accepted', wrongAud);
      expectUnauthorized(await list(s, 'project', bearer(await hs256({ aud: 'objectql' }))), 'issuer not accepted');
    });

    it('applies a clock tolerance of 0 when configured', async () => {
      const justExpired = await hs256({ iss: 'https://issuer.example', aud: 'objectql', exp: now() - 5 });
      expectUnauthorized(await list(s, 'project', bearer(justExpired)), 'expired', justExpired);
    });
  });

  describe('roles and id claims', () => {
    const servers: TestServer[] = [];
    const start = async (jwt: Record<string, unknown>) => {
      const s = await startAuthServer({ jwt: { secret: SECRET, ...jwt }, sessions: true });
      servers.push(s);
      return s;
    };
    after(() => Promise.all(servers.map((s) => s.stop())));

    it('reads roles as a list or a space-separated string; no roles claim means no roles', async () => {
      const s = await start({});
      expect((await whoAmI(s, bearer(await hs256({ roles: 'member manager' })))).roles).to.deep.equal(['member', 'manager']);
      expect((await whoAmI(s, bearer(await hs256({ roles: ['viewer'] })))).roles).to.deep.equal(['viewer']);
      expect((await whoAmI(s, bearer(await hs256({ roles: undefined })))).roles).to.deep.equal([]);
      // A manager by a space-separated string sees every project.
      expect(ids(await list(s, 'project', bearer(await hs256({ roles: 'manager' }))))).to.have.length(3);
    });

    it('refuses a roles claim of another type', async () => {
      const s = await start({});
      const t = await hs256({ roles: { admin: true } });
      expectUnauthorized(await list(s, 'project', bearer(t)), "'roles' claim is neither a list of strings nor a space-separated string", t);
    });

    it('follows a dotted path (realm_access.roles) and a custom id claim', async () => {
      const s = await start({ rolesClaim: 'realm_access.roles', idClaim: 'preferred_username' });
      const user = await whoAmI(
        s,
        bearer(await hs256({ sub: 'f81d4fae', preferred_username: 'carol', roles: undefined, realm_access: { roles: ['manager'] } })),
      );
      expect(user).to.include({ id: 'carol', sub: 'f81d4fae' });
      expect(user.roles).to.deep.equal(['manager']);
      expect(
        ids(await list(s, 'project', bearer(await hs256({ preferred_username: 'alice', realm_access: { roles: ['member'] } })))),
      ).to.deep.equal(['prj-apollo', 'prj-mercury']);
    });

    it('reads a namespaced claim whose name holds dots', async () => {
      const s = await start({ rolesClaim: 'https://example.com/roles' });
      const user = await whoAmI(s, bearer(await hs256({ roles: undefined, 'https://example.com/roles': ['viewer'] })));
      expect(user.roles).to.deep.equal(['viewer']);
      expect(user).not.to.have.property('https://example.com/roles');
    });
  });

  describe('RS256 and ES256 with a PEM public key', () => {
    let rsa: { publicKey: CryptoKey; privateKey: CryptoKey };
    let ec: { publicKey: CryptoKey; privateKey: CryptoKey };
    let rsaPem: string;
    let ecPem: string;
    let rs: TestServer;
    let es: TestServer;
    before(async () => {
      rsa = await generateKeyPair('RS256', { extractable: true });
      ec = await generateKeyPair('ES256', { extractable: true });
      rsaPem = await exportSPKI(rsa.publicKey);
      ecPem = await exportSPKI(ec.publicKey);
      rs = await startAuthServer({ jwt: { publicKey: rsaPem } });
      es = await startAuthServer({ jwt: { publicKey: ecPem, algorithms: ['ES256'] } });
    });
    after(() => Promise.all([rs?.stop(), es?.stop()]));

    it('accepts RS256 tokens (algorithm inferred from the RSA key)', async () => {
      expect(ids(await list(rs, 'project', bearer(await token(rsa.privateKey, 'RS256'))))).to.deep.equal(['prj-apollo', 'prj-mercury']);
    });

    it('accepts ES256 tokens', async () => {
      expect(
        ids(await list(es, 'project', bearer(await token(ec.privateKey, 'ES256', { sub: 'carol', roles: ['manager'] })))),
      ).to.have.length(3);
    });

    it('refuses an HS256 token signed with the public key text (algorithm confusion)', async () => {
      const confused = await token(new TextEncoder().encode(rsaPem), 'HS256', { roles: ['admin'] });
      expectUnauthorized(await list(rs, 'project', bearer(confused)), 'Bearer token rejected: algorithm not allowed', confused);
    });

    it('refuses a token of another key, and a token of another algorithm', async () => {
      const other = await generateKeyPair('RS256');
      const foreign = await token(other.privateKey, 'RS256');
      expectUnauthorized(await list(rs, 'project', bearer(foreign)), 'bad signature', foreign);
      const ps256 = await token((await generateKeyPair('PS256')).privateKey, 'PS256');
      expectUnauthorized(await list(rs, 'project', bearer(ps256)), 'algorithm not allowed', ps256);
      const es256 = await token(ec.privateKey, 'ES256');
      expectUnauthorized(await list(rs, 'project', bearer(es256)), 'algorithm not allowed', es256);
    });

    it('refuses a public key that is not one, or algorithms that do not fit it, naming the key', async () => {
      const fail = (jwt: Record<string, unknown>) =>
        createKernel({ logLevel: 'silent', metadata: [SAMPLE_METADATA], plugins: { auth: { jwt } } }).then(
          () => 'no error',
          (e: Error) => e.message,
        );
      expect(await fail({ publicKey: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----' })).to.match(
        /^Plugin 'auth': jwt\.publicKey must be a PEM public key/,
      );
      expect(await fail({ publicKey: rsaPem, algorithms: ['ES256'] })).to.include(
        "Plugin 'auth': jwt.algorithms ES256 do not fit the rsa key",
      );
      expect(await fail({ publicKey: ecPem, algorithms: ['HS256'] })).to.include('jwt.algorithms must not include HS256');
    });
  });

  describe('JWKS from a remote URL', () => {
    let jwks: Server;
    let fetches = 0;
    let rsa: { publicKey: CryptoKey; privateKey: CryptoKey };
    let ec: { publicKey: CryptoKey; privateKey: CryptoKey };
    let s: TestServer;
    before(async () => {
      rsa = await generateKeyPair('RS256', { extractable: true });
      ec = await generateKeyPair('ES256', { extractable: true });
      const keys: JWK[] = [
        { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
        { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
      ];
      jwks = createServer((req, res) => {
        fetches++;
        if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
      });
      await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
      const { port } = jwks.address() as AddressInfo;
      s = await startAuthServer({ jwt: { jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json` } });
    });
    after(async () => {
      await s?.stop();
      jwks?.closeAllConnections();
      await new Promise((r) => jwks?.close(r));
    });

    it('verifies RS256 and ES256 tokens with the key their kid names', async () => {
      expect(ids(await list(s, 'project', bearer(await token(rsa.privateKey, 'RS256', {}, { kid: 'rsa-1' }))))).to.deep.equal([
        'prj-apollo',
        'prj-mercury',
      ]);
      expect(
        ids(await list(s, 'project', bearer(await token(ec.privateKey, 'ES256', { sub: 'carol', roles: ['manager'] }, { kid: 'ec-1' })))),
      ).to.have.length(3);
      expect(fetches).to.be.greaterThan(0);
    });

    it('refuses an unknown kid, a forged signature and a symmetric algorithm', async () => {
      const other = await generateKeyPair('RS256');
      const unknownKid = await token(other.privateKey, 'RS256', {}, { kid: 'rsa-2' });
      expectUnauthorized(await list(s, 'project', bearer(unknownKid)), 'Bearer token rejected: no signing key matches it', unknownKid);
      const forged = await token(other.privateKey, 'RS256', {}, { kid: 'rsa-1' });
      expectUnauthorized(await list(s, 'project', bearer(forged)), 'bad signature', forged);
      const hmac = await token(new TextEncoder().encode(SECRET), 'HS256', {}, { kid: 'rsa-1' });
      expectUnauthorized(await list(s, 'project', bearer(hmac)), 'algorithm not allowed', hmac);
    });

    it('answers 500 without the token when the JWKS cannot be fetched', async () => {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const { port } = closed.address() as AddressInfo;
      await new Promise((r) => closed.close(r));
      const down = await startAuthServer({ jwt: { jwksUrl: `http://127.0.0.1:${port}/jwks.json` } });
      try {
        const t = await token(rsa.privateKey, 'RS256', {}, { kid: 'rsa-1' });
        const res = await list(down, 'project', bearer(t));
        expect(res.status).to.equal(500);
        expect(res.body.error).to.include({
          code: 'INTERNAL_ERROR',
          message: 'Bearer token could not be verified: signing keys are unavailable',
        });
        expect(JSON.stringify(res.body)).not.to.include(t.split('.')[2]);
      } finally {
        await down.stop();
      }
    });
  });
});
