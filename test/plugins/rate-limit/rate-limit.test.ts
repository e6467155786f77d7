/**
 * The rate limit over real HTTP, with the memory store: the headers on every limited response,
 * the 429 body, the tiers, the two windows, separate budgets, and what is not limited.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { createKernel, ObjectQLError, type Kernel } from '../../../server';
import { SAMPLE_METADATA, USERS, type TestServer } from '../../helpers/server';
import { allowance, expectTooMany, hasNoLimitHeaders, hit, limits, startLimited, type Res } from './helpers';

const nowSeconds = () => Date.now() / 1000;

describe('rate-limit over HTTP', () => {
  const servers: TestServer[] = [];
  async function server(...args: Parameters<typeof startLimited>): Promise<TestServer> {
    const s = await startLimited(...args);
    servers.push(s);
    return s;
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('counts X-RateLimit-Remaining down from the tier limit, with X-RateLimit-Reset in Unix epoch seconds', async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 3, perHour: 100 } } });
    const before = nowSeconds();
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await hit(s);
      expect(res.status).to.equal(200);
      seen.push(limits(res));
    }
    expect(seen.map((l) => [l.limit, l.remaining, l.retryAfter])).to.deep.equal([
      [3, 2, undefined],
      [3, 1, undefined],
      [3, 0, undefined],
    ]);
    for (const l of seen) {
      expect(l.reset, 'within the coming minute').to.be.within(Math.floor(before), Math.ceil(nowSeconds()) + 60);
      expect(Math.abs(l.reset - seen[0].reset), 'a fixed window: one reset time').to.be.at.most(1);
    }
  });

  it('refuses the request after the last with 429 RATE_LIMIT_EXCEEDED, details.retry_after and Retry-After in seconds', async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 2, perHour: 100 } } });
    await hit(s);
    const last = limits(await hit(s));
    const res = await hit(s);
    const retryAfter = expectTooMany(res);
    expect(retryAfter).to.be.within(1, 60);
    expect(res.body.error.message).to.match(/2 requests per minute/);
    const l = limits(res);
    expect(l.limit).to.equal(2);
    expect(l.reset).to.equal(last.reset);
    expect(l.reset).to.be.within(Math.floor(nowSeconds()), Math.ceil(nowSeconds()) + retryAfter + 1);
    expectTooMany(await hit(s));
  });

  it('puts the headers on every limited response: errors of each kind, routes that do not exist, JSON-RPC', async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 10, perHour: 100 } } });
    const responses: Array<[string, Res, number]> = [
      ['no such route', await hit(s, null, 'GET', '/api/nothing/here'), 404],
      ['no such record', await hit(s, null, 'GET', '/api/data/account/no-such-id'), 404],
      ['no such object', await hit(s, null, 'GET', '/api/data/no_such_object'), 404],
      ['a body that is not JSON', await hit(s, null, 'POST', '/api/data/account', 'name=x', { 'content-type': 'text/plain' }), 400],
      ['malformed JSON', await hit(s, null, 'POST', '/api/data/account', '{"name":', { 'content-type': 'application/json' }), 400],
      ['a body over the size limit', await hit(s, null, 'POST', '/api/data/account', { name: 'x'.repeat(2_000_000) }), 400],
      ['an object anonymous callers may not read', await hit(s, null, 'GET', '/api/data/project'), 401],
      ['a record that fails validation', await hit(s, null, 'POST', '/api/data/account', {}), 400],
      ['a JSON-RPC call', await hit(s, null, 'POST', '/api/objectql', { op: 'count', object: 'account' }), 200],
      ['a JSON-RPC call without op', await hit(s, null, 'POST', '/api/objectql', {}), 400],
    ];
    responses.forEach(([what, res, status], i) => {
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(status);
      expect(limits(res), what).to.deep.include({ limit: 10, remaining: 9 - i, retryAfter: undefined });
    });
    const forbidden = await hit(s, USERS.nobody, 'GET', '/api/data/project');
    expect(forbidden.status).to.equal(403);
    expect(limits(forbidden), 'a user of no role: the authenticated tier').to.deep.include({ limit: 100, remaining: 99 });
  });

  it('applies the tier: anonymous, authenticated, and premium by role or by claim', async () => {
    const s = await server({
      tiers: {
        anonymous: { perMinute: 2, perHour: 100 },
        authenticated: { perMinute: 3, perHour: 100 },
        premium: { perMinute: 4, perHour: 100 },
      },
      premium: { claim: { name: 'plan', value: 'gold' } },
    });
    expect(await allowance(s, null), 'anonymous').to.equal(2);
    expect(await allowance(s, USERS.alice), 'authenticated').to.equal(3);
    expect(await allowance(s, { id: 'pia', roles: ['member', 'premium'] }), 'premium by role').to.equal(4);
    expect(await allowance(s, { id: 'gus', roles: ['member'], plan: 'gold' }), 'premium by claim').to.equal(4);
    expect(await allowance(s, { id: 'sam', roles: ['member'], plan: 'silver' }), 'another claim value').to.equal(3);
    expect(limits(await hit(s, { id: 'new', roles: [], plan: 'gold' })).limit).to.equal(4);
  });

  it("counts a user marked anonymous (an auth plugin's caller without credentials) as anonymous, by address", async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 3, perHour: 100 } } });
    const guest = { id: 'anonymous', roles: ['guest', 'premium'], anonymous: true };
    expect(limits(await hit(s, guest))).to.deep.include({ limit: 3, remaining: 2 });
    expect(limits(await hit(s, null)).remaining, 'one budget with callers of no user at all').to.equal(1);
    expect(limits(await hit(s, guest)).remaining).to.equal(0);
    expectTooMany(await hit(s, guest));
  });

  it('takes the premium roles from the options instead of the default role', async () => {
    const s = await server({
      tiers: { authenticated: { perMinute: 2, perHour: 100 }, premium: { perMinute: 3, perHour: 100 } },
      premium: { roles: ['vip'] },
    });
    expect(await allowance(s, { id: 'a', roles: ['premium'] })).to.equal(2);
    expect(await allowance(s, { id: 'b', roles: ['vip'] })).to.equal(3);
  });

  it('lets the hour window bind when it has fewer requests left than the minute one', async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 5, perHour: 3 } } });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(limits(await hit(s)));
    expect(seen.map((l) => [l.limit, l.remaining])).to.deep.equal([
      [3, 2],
      [3, 1],
      [3, 0],
    ]);
    expect(seen[0].reset - nowSeconds(), 'the hour resets later than a minute from now').to.be.greaterThan(60);
    const res = await hit(s);
    const retryAfter = expectTooMany(res);
    expect(retryAfter).to.be.within(61, 3600);
    expect(res.body.error.message).to.match(/3 requests per hour/);
  });

  it('keeps a budget per user and one per anonymous address', async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 2, perHour: 100 }, authenticated: { perMinute: 2, perHour: 100 } } });
    expect(await allowance(s, USERS.alice)).to.equal(2);
    expect(limits(await hit(s, USERS.bob)).remaining, 'bob is counted apart').to.equal(1);
    expect(limits(await hit(s, null)).remaining, 'anonymous is counted apart').to.equal(1);
    expect(limits(await hit(s, { ...USERS.alice, roles: ['manager'] })).remaining, 'alice, whatever her roles').to.equal(0);
    expectTooMany(await hit(s, USERS.alice));
    expect((await hit(s, USERS.bob)).status).to.equal(200);
  });

  it('keeps the memory budgets of two kernels apart', async () => {
    const a = await server({ tiers: { anonymous: { perMinute: 2, perHour: 100 } } });
    const b = await server({ tiers: { anonymous: { perMinute: 2, perHour: 100 } } });
    expect(await allowance(a, null)).to.equal(2);
    expect(limits(await hit(b)).remaining).to.equal(1);
    expect(await allowance(b, null)).to.equal(1);
  });

  it('does not limit public routes: health, discovery, the OpenAPI document and docs page', async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 1, perHour: 100 } } }, { openapi: true });
    expect(await allowance(s, null)).to.equal(1);
    for (const path of ['/health', '/.well-known/objectql', '/api/objectql/openapi.json', '/api/objectql/docs']) {
      for (let i = 0; i < 3; i++) {
        const res = await hit(s, null, 'GET', path);
        expect(res.status, path).to.equal(200);
        hasNoLimitHeaders(res);
      }
    }
    expectTooMany(await hit(s));
  });

  it('lists its tiers at the discovery route', async () => {
    const s = await server({ tiers: { anonymous: { perMinute: 7 } } });
    const res = await hit(s, null, 'GET', '/.well-known/objectql');
    const capability = res.body.capabilities.find((c: { plugin: string }) => c.plugin === 'rate-limit');
    expect(capability).to.deep.equal({
      plugin: 'rate-limit',
      tiers: {
        anonymous: { perMinute: 7, perHour: 100 },
        authenticated: { perMinute: 100, perHour: 1000 },
        premium: { perMinute: 500, perHour: 10000 },
      },
      windows: { minute: 60, hour: 3600 },
      store: 'memory',
      headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
      reset: 'unix-seconds',
    });
  });

  it('adds the 429 response and the headers to the limited operations of the OpenAPI document', async () => {
    const s = await server({}, { openapi: true });
    const doc = (await hit(s, null, 'GET', '/api/objectql/openapi.json')).body;
    await SwaggerParser.validate(structuredClone(doc));
    expect(Object.keys(doc.components.headers)).to.include.members([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    ]);
    const list = doc.paths['/api/data/account'].get;
    expect(list.responses['429'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
    expect(list.responses['429'].headers['Retry-After']).to.deep.equal({ $ref: '#/components/headers/Retry-After' });
    expect(list.responses['200'].headers['X-RateLimit-Remaining']).to.deep.equal({ $ref: '#/components/headers/X-RateLimit-Remaining' });
    expect(doc.paths['/api/objectql'].post.responses).to.have.property('429');
    expect(doc.paths['/api/objectql/openapi.json'].get.responses, 'public: not limited').not.to.have.property('429');
    expect(doc.paths['/api/objectql/openapi.json'].get.responses['200'].headers).not.to.have.property('X-RateLimit-Limit');
  });

  describe('with an authentication that fails', () => {
    let kernel: Kernel;
    before(async () => {
      kernel = await createKernel({
        port: 0,
        host: '127.0.0.1',
        logLevel: 'silent',
        metadata: [SAMPLE_METADATA],
        datasources: { default: { driver: 'memory' } },
        plugins: { rest: true, 'rate-limit': { tiers: { anonymous: { perMinute: 3, perHour: 100 } } } },
      });
      kernel.use({
        name: 'test-bad-token',
        register(k) {
          k.hooks.authenticate.tapPromise('test-bad-token', (req) =>
            req.headers.authorization ? Promise.reject(new ObjectQLError('UNAUTHORIZED', 'Invalid token')) : Promise.resolve(undefined),
          );
        },
      });
      await kernel.start();
    });
    after(async () => {
      await kernel?.stop();
    });

    it('counts a failed authentication against the anonymous budget of its address, and refuses it with 429 once spent', async () => {
      const get = async (headers: Record<string, string>): Promise<Res> => {
        const res = await fetch(`${kernel.http.url}/api/data/account?top=1`, { headers });
        return { status: res.status, body: await res.json(), headers: res.headers };
      };
      const bad = await get({ authorization: 'Bearer nope' });
      expect(bad.status).to.equal(401);
      expect(bad.body.error.code).to.equal('UNAUTHORIZED');
      expect(limits(bad)).to.deep.include({ limit: 3, remaining: 2 });
      expect(limits(await get({})).remaining).to.equal(1);
      expect(limits(await get({ authorization: 'Bearer nope' })).remaining).to.equal(0);
      expectTooMany(await get({ authorization: 'Bearer nope' }));
      expectTooMany(await get({}));
    });
  });
});
