/**
 * What a server does not use, it does not load (README, "Memory"): a kernel started from the sample
 * application's config (objectql.config.ts: every built-in plugin, memory stores, a SQLite file) in
 * a child process has none of ioredis, the other stores' clients, sharp, @apollo/subgraph,
 * GraphiQL/React, Swagger UI, graphql-jit, rate-limiter-flexible's index, jiti's Babel or pino-pretty in its module cache.
 * With a Redis store configured, ioredis is there: the check sees what it checks.
 *
 * A child process, so that what this process's other tests loaded does not count; it runs the
 * sources through tsx, as the tests do.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '../..');

/** Starts the sample config (with `overrides`, JSON) in `dir`, prints the module cache's files, stops. */
const CHILD = `
const { join } = require('node:path');
const { createKernel, loadConfigFile } = require(${JSON.stringify(join(ROOT, 'server'))});
(async () => {
  const config = await loadConfigFile(${JSON.stringify(join(ROOT, 'objectql.config.ts'))});
  const dir = process.cwd();
  const overrides = JSON.parse(process.env.LAZY_OVERRIDES);
  const kernel = await createKernel({
    ...config,
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    baseDir: dir,
    datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'app.sqlite') } } },
    plugins: { ...config.plugins, ...overrides },
  });
  await kernel.start();
  const loaded = Object.keys(require.cache);
  await kernel.stop();
  process.stdout.write(JSON.stringify(loaded));
  process.exit(0);
})().catch((err) => {
  process.stderr.write(String(err && err.stack || err));
  process.exit(1);
});
`;

const NOT_LOADED = [
  'ioredis/',
  'mongodb/',
  'pg/',
  'mysql2/',
  'sharp/',
  '@apollo/subgraph/',
  'react/',
  'react-dom/',
  'graphiql/',
  'swagger-ui-dist/',
  'rate-limiter-flexible/index.js',
  'jiti/dist/babel.cjs',
  'graphql-jit/',
  'pino-pretty/', // objectql dev's log only
];

/** The module cache's files below node_modules, as `package/path`, of a kernel started with these plugin overrides. */
async function loadedModules(overrides: Record<string, unknown>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'objectql-lazy-'));
  try {
    const { PORT: _port, ...env } = process.env;
    const { stdout } = await promisify(execFile)(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', CHILD], {
      cwd: dir,
      env: { ...env, NODE_ENV: 'test', LAZY_OVERRIDES: JSON.stringify(overrides) },
      maxBuffer: 64 * 1024 * 1024,
    });
    return (JSON.parse(stdout) as string[]).flatMap((file) => {
      const at = file.lastIndexOf('/node_modules/');
      return at < 0 ? [] : [file.slice(at + '/node_modules/'.length)];
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('server: modules loaded only when used', function () {
  this.timeout(60_000);

  it('the sample config with memory stores loads none of the heavy modules it does not use', async () => {
    const loaded = await loadedModules({});
    expect(
      loaded.some((m) => m.startsWith('graphql/')),
      'graphql is loaded (the check works)',
    ).to.equal(true);
    for (const name of NOT_LOADED) {
      expect(
        loaded.filter((m) => m.startsWith(name)),
        `${name} is loaded`,
      ).to.deep.equal([]);
    }
  });

  it('a Redis store loads ioredis', async () => {
    const loaded = await loadedModules({ 'rate-limit': { store: { redis: { url: 'redis://127.0.0.1:6379' } } } });
    expect(loaded.some((m) => m.startsWith('ioredis/'))).to.equal(true);
  });
});
