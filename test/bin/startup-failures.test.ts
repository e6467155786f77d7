/**
 * `objectql serve` failing to start for a reason outside the code says it in one paragraph, without
 * a stack, and exits 1: a port already in use (the server's or a plugin's own), a database that
 * does not exist (PostgreSQL) or that nothing serves, a plugin module that exports no plugin.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireDialect } from '../drivers/sql/helpers';
import { SERVICE_URLS } from '../helpers/services';
import { needBuiltCli, serve } from './cli-process';

const STACK_LINE = '    at ';

describe('objectql serve: start-up failures', function () {
  let tmp: string;
  let occupied: Server;
  let port: number;

  /** A config file of the test folder: the sample's small object, its store and plugins as given. */
  const configFile = (name: string, extra: Record<string, unknown>) => {
    const file = join(tmp, name);
    writeFileSync(
      file,
      JSON.stringify({
        host: '127.0.0.1',
        logLevel: 'silent',
        metadata: ['./meta'],
        datasources: { default: { driver: 'memory' } },
        ...extra,
      }),
    );
    return file;
  };

  before(async function () {
    needBuiltCli(this);
    tmp = mkdtempSync(join(tmpdir(), 'objectql-failures-'));
    mkdirSync(join(tmp, 'meta'));
    writeFileSync(join(tmp, 'meta', 'greeting.object.yml'), 'fields:\n  text: {type: text}\n');
    occupied = createServer();
    await new Promise<void>((res, rej) => occupied.once('error', rej).listen(0, '127.0.0.1', () => res()));
    port = (occupied.address() as { port: number }).port;
  });
  after(async () => {
    await new Promise((res) => occupied?.close(res));
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('names the port in use and how to choose another', async () => {
    const config = configFile('port.json', { plugins: { rpc: true } });
    const { code, stderr } = await serve(['--config', config, '--port', String(port)], {});
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include(`objectql: Cannot listen on 127.0.0.1:${port}: the port is already in use`);
    expect(stderr).to.include(`--port ${port + 1}, or PORT=${port + 1}`);
    expect(stderr).to.not.include(STACK_LINE);
  });

  it("names a plugin's own port in use and where to change it", async () => {
    const config = configFile('graphql-port.json', { plugins: { rpc: true, graphql: { port } } });
    const { code, stderr } = await serve(['--config', config, '--port', '0'], {});
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include(`Cannot listen on 127.0.0.1:${port}`).and.include("a plugin's own port").and.include('plugins.graphql.port');
    expect(stderr).to.not.include(STACK_LINE);
  });

  it('names a PostgreSQL database that does not exist, its datasource and driver, and what to do', async function () {
    await requireDialect(this, 'postgres');
    const missing = `objectql_missing_${randomBytes(4).toString('hex')}`;
    const url = new URL(SERVICE_URLS.postgres!);
    url.pathname = `/${missing}`;
    const config = configFile('pg.json', { datasources: { default: { driver: 'sql', client: 'pg', connection: url.href } } });
    const { code, stderr } = await serve(['--config', config, '--port', '0'], {});
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include(`objectql: Cannot connect to datasource 'default' (sql, postgres): database "${missing}" does not exist.`);
    expect(stderr).to.include(`CREATE DATABASE ${missing}`).and.include(`datasources.default.connection in ${config}`);
    expect(stderr).to.not.include(STACK_LINE);
  });

  it('names a database server that nothing serves', async () => {
    // A port that was free a moment ago: nothing listens there, so connecting is refused.
    const probe = createServer();
    await new Promise<void>((res) => probe.listen(0, '127.0.0.1', () => res()));
    const closed = (probe.address() as { port: number }).port;
    await new Promise((res) => probe.close(res));
    const connection = `postgres://app@127.0.0.1:${closed}/app`;
    const config = configFile('refused.json', { datasources: { default: { driver: 'sql', client: 'pg', connection } } });
    const { code, stderr } = await serve(['--config', config, '--port', '0'], {});
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include(
      `Cannot connect to datasource 'default' (sql, postgres): nothing accepts connections at 127.0.0.1:${closed}.`,
    );
    expect(stderr).to.include('Start the database server');
    expect(stderr).to.not.include(STACK_LINE);
  });

  it('names the config key and file of a plugin module that exports no plugin, and what it must export', async () => {
    writeFileSync(join(tmp, 'empty-plugin.js'), 'module.exports = {};\n');
    const config = configFile('empty.json', { plugins: { rpc: true, './empty-plugin.js': true } });
    const { code, stderr } = await serve(['--config', config, '--port', '0'], {});
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include(
      `objectql: Not a plugin: plugins['./empty-plugin.js'] in the config (${join(tmp, 'empty-plugin.js')}) exports {}.`,
    );
    expect(stderr).to.include('{name, register}').and.include('definePlugin');
    expect(stderr).to.not.include(STACK_LINE);
  });
});
