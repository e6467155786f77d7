/**
 * Token lifetime over real HTTP with jose-minted tokens: `exp` required by default (and optional
 * when configured), `iat` in the future refused beyond the clock tolerance, expired tokens
 * refused; and the public development secret: a loud warning in development, refused anywhere else.
 */
import { expect } from 'chai';
import { createKernel } from '../../../server';
import { SAMPLE_METADATA, type TestServer } from '../../helpers/server';
import { DEVELOPMENT_JWT_SECRET } from '../../../plugins/auth/development';
import sampleConfig from '../../../objectql.config';
import { bearer, expectUnauthorized, hs256, ids, list, SECRET, startAuthServer, token } from './helpers';

const now = () => Math.floor(Date.now() / 1000);

describe('auth: token lifetime', () => {
  const servers: TestServer[] = [];
  const start = async (jwt: Record<string, unknown> = {}) => {
    const s = await startAuthServer({ jwt: { secret: SECRET, ...jwt }, sessions: true });
    servers.push(s);
    return s;
  };
  after(() => Promise.all(servers.map((s) => s.stop())));

  it('refuses a token without exp by default, with 401 and the reason, on every route', async () => {
    const s = await start();
    const forever = await hs256({ exp: undefined });
    expect(JSON.parse(Buffer.from(forever.split('.')[1], 'base64url').toString())).not.to.have.property('exp');
    const res = await list(s, 'project', bearer(forever));
    expectUnauthorized(res, "Bearer token rejected: it never expires (no 'exp' claim)", forever);
    expect(res.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
    expect(res.body.error.details).to.deep.equal({ credential: 'bearer', reason: "it never expires (no 'exp' claim)" });
    // Nor can it be traded for a session that would outlive nothing.
    expectUnauthorized(await s.request('POST', '/api/auth/session', undefined, bearer(forever)), "no 'exp' claim", forever);
    expectUnauthorized(await s.rpc({ op: 'count', object: 'project' }, bearer(forever)), "no 'exp' claim", forever);
  });

  it('accepts a token without exp when requireExp is false', async () => {
    const s = await start({ requireExp: false });
    expect(ids(await list(s, 'project', bearer(await hs256({ exp: undefined }))))).to.deep.equal(['prj-apollo', 'prj-mercury']);
  });

  it('refuses an iat in the future beyond the clock tolerance (30 s by default), accepts one within it', async () => {
    const s = await start();
    const from2100 = await hs256({ iat: 4102444800, exp: 4102448400 });
    expectUnauthorized(await list(s, 'project', bearer(from2100)), "Bearer token rejected: issued in the future ('iat' claim)", from2100);
    const inAnHour = await hs256({ iat: now() + 3600 });
    expectUnauthorized(await list(s, 'project', bearer(inAnHour)), "issued in the future ('iat' claim)", inAnHour);
    const slightlyAhead = await hs256({ iat: now() + 10 });
    expect((await list(s, 'project', bearer(slightlyAhead))).status).to.equal(200);
  });

  it('the skew edge follows clockTolerance: iat just inside is accepted, just outside refused', async () => {
    const s = await start({ clockTolerance: 120 });
    // 60 s of margin on each side of the edge keeps the test independent of how long a request takes.
    expect((await list(s, 'project', bearer(await hs256({ iat: now() + 60 })))).status).to.equal(200);
    const outside = await hs256({ iat: now() + 180 });
    expectUnauthorized(await list(s, 'project', bearer(outside)), 'issued in the future', outside);
    const strict = await start({ clockTolerance: 0 });
    const ahead = await hs256({ iat: now() + 60 });
    expectUnauthorized(await list(strict, 'project', bearer(ahead)), 'issued in the future', ahead);
    expect((await list(strict, 'project', bearer(await hs256({ iat: now() - 1 })))).status).to.equal(200);
  });

  it('refuses an expired token, and a non-numeric iat or exp', async () => {
    const s = await start();
    const expired = await hs256({ iat: now() - 7200, exp: now() - 3600 });
    expectUnauthorized(await list(s, 'project', bearer(expired)), 'Bearer token rejected: expired', expired);
    const textIat = await hs256({ iat: 'yesterday' as unknown as number });
    expectUnauthorized(await list(s, 'project', bearer(textIat)), "its 'iat' claim is invalid", textIat);
    const textExp = await hs256({ exp: 'never' as unknown as number });
    expectUnauthorized(await list(s, 'project', bearer(textExp)), "its 'exp' claim is invalid", textExp);
  });

  it('refuses a requireExp that is not a boolean, naming the key', async () => {
    const err = await createKernel({
      logLevel: 'silent',
      metadata: [SAMPLE_METADATA],
      plugins: { auth: { jwt: { secret: SECRET, requireExp: 'no' } } },
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.equal("Plugin 'auth': jwt.requireExp must be true or false");
  });
});

describe('auth: the development JWT secret', () => {
  const saved = process.env.NODE_ENV;
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = saved;
  });

  const config = (secret: string) => ({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent' as const,
    metadata: [SAMPLE_METADATA],
    datasources: { default: { driver: 'memory' } },
    plugins: { rest: true, auth: { jwt: { secret } } },
  });

  it("is the sample config's fallback when OBJECTQL_JWT_SECRET is not set", () => {
    // The config was read once, at import; without the variable it falls back (CI and `npm test` do not set it).
    if (process.env.OBJECTQL_JWT_SECRET === undefined) {
      expect(sampleConfig.plugins.auth.jwt.secret).to.equal(DEVELOPMENT_JWT_SECRET);
    }
  });

  for (const env of ['production', 'staging', undefined]) {
    it(`refuses it at start-up when NODE_ENV is ${env ?? 'not set'}, saying why and what to do`, async () => {
      if (env === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = env;
      const err = await createKernel(config(DEVELOPMENT_JWT_SECRET)).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message)
        .to.match(/^Plugin 'auth': jwt\.secret is the public development secret/)
        .and.include('anyone can sign Bearer tokens with it for any user and any role, admin included')
        .and.include(`refused because NODE_ENV is ${env ? `'${env}'` : 'not set'}`)
        .and.include('set OBJECTQL_JWT_SECRET (or jwt.secret) to a secret of your own');
    });
  }

  it('starts in development with a loud warning naming the risk, and tokens signed with it work', async () => {
    process.env.NODE_ENV = 'development';
    const kernel = await createKernel(config(DEVELOPMENT_JWT_SECRET));
    const warnings: string[] = [];
    kernel.logger.warn = (msg: unknown) => void warnings.push(String(msg));
    await kernel.start();
    try {
      expect(warnings).to.have.length(1);
      expect(warnings[0])
        .to.include('jwt.secret is the public development secret')
        .and.include('admin included')
        .and.include('refused unless NODE_ENV is development or test');
      expect(warnings[0]).not.to.include(DEVELOPMENT_JWT_SECRET);
      const admin = await token(new TextEncoder().encode(DEVELOPMENT_JWT_SECRET), 'HS256', { sub: 'mallory', roles: ['admin'] });
      const res = await fetch(`${kernel.http.url}/api/data/project`, { headers: bearer(admin) });
      expect(res.status).to.equal(200);
    } finally {
      await kernel.stop();
    }
  });

  it('stays quiet about a secret of your own', async () => {
    process.env.NODE_ENV = 'production';
    const kernel = await createKernel(config(SECRET));
    const warnings: string[] = [];
    kernel.logger.warn = (msg: unknown) => void warnings.push(String(msg));
    await kernel.start();
    await kernel.stop();
    expect(warnings).to.deep.equal([]);
  });
});
