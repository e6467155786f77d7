/**
 * A database that fails under a running server, for real: PostgreSQL and MariaDB behind a TCP
 * proxy on loopback (test/helpers/fault-proxy.ts) that the test stalls, black-holes and resets.
 * Requests answer 503 SERVICE_UNAVAILABLE naming the datasource (never a 500, never a hang),
 * /health/ready says which datasource is down, /health stays 200, and the pool recovers by itself
 * once the database answers again. The timeouts are made small here; durations are printed, not
 * asserted.
 */
import { expect } from 'chai';
import type { DatasourceConfig } from '../../kernel';
import { FaultProxy, until } from '../helpers/fault-proxy';
import { probeHealthDuring } from '../helpers/health-probe';
import { identityHeader, startServer, USERS, type TestServer } from '../helpers/server';
import { SERVICE_URLS } from '../helpers/services';
import { openNamespace, requireDialect, type Namespace } from '../drivers/sql/helpers';

const TIMEOUTS = { connectMillis: 1000, acquireMillis: 1500, statementMillis: 800, queryMillis: 1000 };
const admin = identityHeader(USERS.admin);

/** The namespace's datasource config, connecting through `proxy`, with the test's small timeouts. */
function throughProxy(config: DatasourceConfig, proxy: FaultProxy): DatasourceConfig {
  const connection = config.connection;
  if (typeof connection === 'string') {
    const url = new URL(connection);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    return { ...config, connection: url.toString(), timeouts: TIMEOUTS };
  }
  return { ...config, connection: { ...(connection as object), connectionString: proxy.url }, timeouts: TIMEOUTS };
}

for (const label of ['postgres', 'mysql'] as const) {
  describe(`a failing database under a running server (${label})`, function () {
    this.timeout(60_000);
    let ns: Namespace | undefined;
    let proxy: FaultProxy;
    let server: TestServer;

    before(async function () {
      await requireDialect(this, label);
    });
    beforeEach(async () => {
      ns = await openNamespace(label);
      proxy = FaultProxy.to(SERVICE_URLS[label]!);
      await proxy.start();
      server = await startServer(
        {
          plugins: { rest: true },
          datasources: { default: throughProxy(ns.config(), proxy) },
          health: { readyTimeoutMs: 1000, readyCacheMs: 0 },
        },
        { identityFromHeader: true },
      );
    });
    afterEach(async () => {
      await server?.stop();
      await proxy?.stop();
      await ns?.drop();
    });

    const list = () => server.request('GET', '/api/data/project?top=2', undefined, admin);
    const ready = () => server.request('GET', '/health/ready');

    /** Several requests at once, so that the pool holds several connections. */
    async function warm(): Promise<void> {
      const all = await Promise.all([list(), list(), list()]);
      expect(all.map((r) => r.status)).to.deep.equal([200, 200, 200]);
      expect((await ready()).status).to.equal(200);
    }

    /** A request that fails: 503 naming the datasource, with Retry-After; prints how long it took. */
    async function expectUnavailable(what: string, send: () => Promise<{ status: number; body: any; headers: Headers }>): Promise<void> {
      const started = performance.now();
      const res = await send();
      console.log(`      ${label} ${what}: ${res.status} in ${Math.round(performance.now() - started)} ms`);
      expect(res.status, JSON.stringify(res.body)).to.equal(503);
      expect(res.body.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(res.body.error.message).to.match(/^Datasource 'default' is unavailable \(.+\); try again later$/);
      expect(res.body.error.details).to.deep.equal({ datasource: 'default' });
      expect(res.headers.get('retry-after')).to.equal('5');
    }

    async function expectNotReady(): Promise<void> {
      const res = await ready();
      expect(res.status, JSON.stringify(res.body)).to.equal(503);
      expect(res.body.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(res.body.error.message).to.contain("datasource 'default'");
      const check = (res.body.error.details.checks as Array<{ kind: string; name: string; status: string }>).find(
        (c) => c.kind === 'datasource' && c.name === 'default',
      );
      expect(check?.status).to.equal('down');
    }

    async function expectRecovered(): Promise<void> {
      const started = performance.now();
      await until(async () => (await list()).status === 200, 20_000);
      console.log(`      ${label} recovered in ${Math.round(performance.now() - started)} ms`);
      await until(async () => (await ready()).status === 200, 10_000);
      const res = await ready();
      expect(res.body.status).to.equal('ready');
      const check = (res.body.checks as Array<{ kind: string; name: string; status: string }>).find((c) => c.name === 'default');
      expect(check).to.include({ kind: 'datasource', status: 'up' });
    }

    it('stall: a request on a connection that stopped answering gets 503, and the pool replaces its connections by itself', async () => {
      await warm();
      proxy.stall();
      const { health } = await probeHealthDuring(server.url, () => expectUnavailable('stalled connection', list));
      expect(health.failures).to.equal(0);
      // New connections pass while the old ones stay silent: the datasource recovers without a restore.
      await expectRecovered();
    });

    it('black hole: reads and writes answer 503 and readiness names the datasource, until the database answers again', async () => {
      await warm();
      proxy.blackHole();
      const { health } = await probeHealthDuring(server.url, async () => {
        await Promise.all([1, 2, 3, 4, 5, 6].map((i) => expectUnavailable(`black-holed read ${i}`, list)));
        await expectUnavailable('black-holed write', () =>
          server.request('POST', '/api/data/project', { name: 'During the outage', status: 'planned' }, admin),
        );
        await expectNotReady();
      });
      expect(health.failures).to.equal(0);
      proxy.restore();
      await expectRecovered();
    });

    it('reset: connections reset (RST) answer 503 at once, and the pool recovers after the database is back', async () => {
      await warm();
      proxy.reset();
      await expectUnavailable('reset connection', list);
      await expectUnavailable('reset on connect', list);
      await expectNotReady();
      expect((await server.request('GET', '/health')).status).to.equal(200);
      proxy.restore();
      await expectRecovered();
    });

    it('a database that is gone (port closed) answers 503, and is used again once it listens again', async () => {
      await warm();
      await proxy.stop();
      await expectUnavailable('connection refused', list);
      await expectNotReady();
      await proxy.start();
      await expectRecovered();
    });
  });
}
