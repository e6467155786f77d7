/**
 * The metrics plugin through a real server: who may read /metrics, and what it counts as clients
 * use the service (REST, JSON-RPC, a 404, a rate-limit refusal, engine operations and their
 * outcomes, the SQLite pool, realtime sockets and subscriptions), in Prometheus's text format.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';
import { Client } from '../realtime/helpers';
import { parseMetrics, sample, type Sample } from './exposition';

const ADMIN_KEY = 'metrics-test-admin-key-0001';
const MEMBER_KEY = 'metrics-test-member-key-001';
const TOKEN = 'scraper-token-0123456789abcdef';
const admin = { 'x-api-key': ADMIN_KEY };

describe('metrics plugin', function () {
  this.timeout(20_000);
  let server: TestServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'objectql-metrics-'));
    server = await startServer({
      datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'db.sqlite') } } },
      security: { adminRoles: ['admin'] },
      plugins: {
        rpc: true,
        rest: true,
        realtime: true,
        auth: {
          apiKeys: [
            { key: ADMIN_KEY, user: { id: 'root', roles: ['admin'] } },
            { key: MEMBER_KEY, user: { id: 'alice', roles: ['member'] } },
          ],
        },
        'rate-limit': { tiers: { anonymous: { perMinute: 3 } } },
        metrics: { token: TOKEN },
      },
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(await res.text());
  };

  describe('who may read it', () => {
    it('refuses an anonymous caller with 401 and a member with 403, in the spec error shape', async () => {
      const anonymous = await server.request('GET', '/metrics');
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body.error.code).to.equal('UNAUTHORIZED');
      const member = await server.request('GET', '/metrics', undefined, { 'x-api-key': MEMBER_KEY });
      expect(member.status).to.equal(403);
      expect(member.body.error).to.include({ code: 'FORBIDDEN' });
      expect(member.body.error.message).to.match(/admin/);
    });

    it('serves an admin and a scraper holding the token; a wrong token is a failed credential (401)', async () => {
      const byAdmin = await server.request('GET', '/metrics', undefined, admin);
      expect(byAdmin.status).to.equal(200);
      expect(byAdmin.body).to.match(/^# HELP objectql_/m);
      await scrape();
      const wrong = await server.request('GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}x` });
      expect(wrong.status).to.equal(401);
    });

    it('is listed at the discovery route', async () => {
      const { body } = await server.request('GET', '/.well-known/objectql');
      expect(body.capabilities).to.deep.include({
        plugin: 'metrics',
        protocol: 'prometheus',
        routes: ['GET /metrics'],
        access: 'token or admin',
      });
    });
  });

  describe('what it counts', () => {
    it('HTTP requests by door, route pattern, method and status; a path no route serves never becomes a label', async () => {
      await server.request('GET', '/api/data/project', undefined, admin);
      await server.request('GET', '/api/data/project/no-such-id', undefined, admin);
      await server.rpc({ op: 'count', object: 'project' }, admin);
      await server.request('GET', '/no/such/path/4711', undefined, admin);
      const samples = await scrape();
      const requests = (labels: Record<string, string>) => sample(samples, 'objectql_http_requests_total', labels);
      expect(requests({ protocol: 'rest', route: '/api/data/:object', method: 'GET', status: '200' })).to.be.at.least(1);
      expect(requests({ protocol: 'rest', route: '/api/data/:object/:id', method: 'GET', status: '404' })).to.be.at.least(1);
      expect(requests({ protocol: 'rpc', route: '/api/objectql', method: 'POST', status: '200' })).to.be.at.least(1);
      expect(requests({ protocol: 'none', route: '(none)', method: 'GET', status: '404' })).to.be.at.least(1);
      expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes('4711') || v.includes('no-such-id')))).to.equal(false);
      const count = sample(samples, 'objectql_http_request_duration_seconds_count', {
        protocol: 'rest',
        route: '/api/data/:object',
        method: 'GET',
        status: '200',
      });
      expect(count).to.equal(requests({ protocol: 'rest', route: '/api/data/:object', method: 'GET', status: '200' }));
    });

    it('engine operations by object, operation and outcome: ok, or the error code', async () => {
      const created = await server.rpc({ op: 'create', object: 'account', args: { name: 'Metrics Ltd' } }, admin);
      expect(created.status).to.equal(200);
      const refused = await server.rpc({ op: 'create', object: 'project', args: { status: 'planning' } }, admin);
      expect(refused.status).to.equal(400);
      const samples = await scrape();
      const ops = (labels: Record<string, string>) => sample(samples, 'objectql_engine_operations_total', labels);
      expect(ops({ object: 'account', operation: 'create', outcome: 'ok' })).to.equal(1);
      expect(ops({ object: 'project', operation: 'create', outcome: refused.body.error.code })).to.equal(1);
      expect(ops({ object: 'project', operation: 'count', outcome: 'ok' })).to.be.at.least(1);
      expect(sample(samples, 'objectql_engine_operation_duration_seconds_count', { object: 'account', operation: 'create' })).to.equal(1);
    });

    it('the pool of each SQL datasource', async () => {
      const samples = await scrape();
      expect(sample(samples, 'objectql_datasource_pool_max', { datasource: 'default' })).to.be.at.least(1);
      for (const state of ['used', 'free', 'pending'])
        expect(sample(samples, 'objectql_datasource_pool_connections', { datasource: 'default', state })).to.be.a('number');
    });

    it('WebSocket connections and subscriptions held now', async () => {
      const ws = server.url.replace(/^http/, 'ws');
      const client = await Client.open(`${ws}/api/realtime`, admin);
      try {
        client.send({ type: 'subscribe', id: 's1', object: 'project' });
        await client.next((m) => m.type === 'ack' && m.id === 's1');
        let samples = await scrape();
        expect(sample(samples, 'objectql_websocket_connections', {})).to.equal(1);
        expect(sample(samples, 'objectql_subscriptions', {})).to.equal(1);
        client.send({ type: 'unsubscribe', id: 's1' });
        await client.next((m) => m.type === 'ack' && m.id === 's1');
        samples = await scrape();
        expect(sample(samples, 'objectql_subscriptions', {})).to.equal(0);
      } finally {
        client.ws.close();
      }
    });

    it('rate-limit refusals, by door', async () => {
      let refused = 0;
      for (let i = 0; i < 5; i++) if ((await server.request('GET', '/api/data/project')).status === 429) refused++;
      expect(refused).to.be.at.least(1);
      const samples = await scrape();
      expect(sample(samples, 'objectql_rate_limit_refusals_total', { protocol: 'rest' })).to.equal(refused);
    });

    it("the process's own metrics", async () => {
      const samples = await scrape();
      expect(sample(samples, 'objectql_process_cpu_user_seconds_total', {})).to.be.above(0);
      expect(samples.some((s) => s.name === 'objectql_nodejs_eventloop_lag_p99_seconds')).to.equal(true);
    });
  });

  it('two kernels in one process count apart, and each serves at its own path and prefix', async () => {
    const other = await startServer({
      basePath: '/two',
      plugins: { rest: true, metrics: { public: true, prefix: 'second_', path: '/prom', processMetrics: false } },
    });
    try {
      const listed = await other.request('GET', '/two/api/data/project');
      const res = await fetch(`${other.url}/two/prom`);
      const samples = parseMetrics(await res.text());
      const labels = { protocol: 'rest', route: '/two/api/data/:object', method: 'GET', status: String(listed.status) };
      expect(sample(samples, 'second_http_requests_total', labels), JSON.stringify(samples)).to.equal(1);
      expect(samples.some((s) => s.name.startsWith('objectql_') || s.name.startsWith('second_process_'))).to.equal(false);
      const first = await scrape();
      expect(sample(first, 'objectql_http_requests_total', { route: '/two/api/data/:object' })).to.equal(undefined);
    } finally {
      await other.stop();
    }
  });

  it('refuses wrong options at start-up, naming the option', async () => {
    const failure = await startServer({ plugins: { metrics: { token: 'short', prefix: 'not-a-name' } } }).then(
      (s) => s.stop().then(() => undefined),
      (err: Error) => err,
    );
    expect(failure?.message).to.match(/Plugin 'metrics'/);
    expect(failure?.message).to.match(/token must be at least 16 characters/);
    expect(failure?.message).to.match(/prefix must be a Prometheus name/);
  });
});
