/**
 * The block `objectql serve` prints once it listens: the URL, one line per door (the landing page's
 * list) with every HTTP URL answering, and in development how to authenticate, never a key or
 * secret. Not printed in production, whose stdout stays JSON lines, nor when no person reads it
 * (stdout not a terminal, NODE_ENV not development).
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wantsBanner } from '../../bin/banner';
import { needBuiltCli, serve } from './cli-process';

const API_KEY = 'banner-test-key-4c1d8e02';
const JWT_SECRET = 'banner-test-secret-of-at-least-32-characters-9a7b';

describe('objectql serve: start-up banner', function () {
  let tmp: string;
  let config: string;

  before(function () {
    needBuiltCli(this);
    tmp = mkdtempSync(join(tmpdir(), 'objectql-banner-'));
    mkdirSync(join(tmp, 'meta'));
    writeFileSync(join(tmp, 'meta', 'greeting.object.yml'), 'fields:\n  text: {type: text}\n');
    config = join(tmp, 'objectql.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        host: '127.0.0.1',
        logLevel: 'info',
        metadata: ['./meta'],
        datasources: { default: { driver: 'memory' } },
        plugins: {
          rpc: true,
          rest: true,
          openapi: true,
          odata: true,
          graphql: true,
          realtime: true,
          auth: { jwt: { secret: JWT_SECRET }, apiKeys: [{ key: API_KEY, user: { id: 'carol', roles: ['manager'] } }] },
        },
      }),
    );
  });
  after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

  it('in development prints the URL, a line per door whose URLs answer, and how to authenticate', async () => {
    const answers: Record<string, number> = {};
    const { code, stdout, stderr } = await serve(
      ['--config', config, '--port', '0'],
      { NODE_ENV: 'development' },
      'Keys and secrets',
      async (out) => {
        const doorLines = out.split('\n').filter((l) => l.startsWith('  '));
        for (const url of doorLines.join(' ').match(/http:\/\/[^\s…]+(?=\s|$)/g) ?? []) answers[url] = (await fetch(url)).status;
      },
    );
    expect(code, stderr).to.equal(0);
    const banner = stdout.split('\n').filter((l) => !l.startsWith('{'));
    const origin = /^ObjectQL is listening on (http:\/\/127\.0\.0\.1:\d+);/.exec(banner[0])?.[1] ?? '';
    expect(origin, stdout).to.not.equal('');
    const doorLine = (plugin: string) => banner.find((l) => l.startsWith(`  ${plugin} `)) ?? '';
    expect(doorLine('rpc')).to.include(`POST ${origin}/api/objectql`);
    expect(doorLine('rest')).to.include(`${origin}/api/data/…`);
    expect(doorLine('openapi')).to.include(`${origin}/api/objectql/docs`);
    expect(doorLine('odata')).to.include(`${origin}/odata/$metadata`);
    expect(doorLine('graphql'))
      .to.include(`${origin}/api/graphql`)
      .and.include(`${origin.replace('http', 'ws')}/api/graphql`);
    expect(doorLine('realtime')).to.include(`${origin.replace('http', 'ws')}/api/realtime`);
    expect(doorLine('kernel')).to.include(`${origin}/health/ready`);
    const auth = banner.find((l) => l.startsWith('Authenticate (development):')) ?? '';
    expect(auth).to.include('X-API-Key: <key>').and.include('Authorization: Bearer <jwt>').and.include('objectql.config.json');
    expect(stdout).to.not.include(API_KEY).and.not.include(JWT_SECRET);
    expect(Object.keys(answers)).to.include(`${origin}/api/objectql/docs`);
    for (const [url, status] of Object.entries(answers)) expect(status, url).to.not.equal(404);
  });

  for (const env of ['production', undefined]) {
    it(`prints none when NODE_ENV is ${env ?? 'not set'} and stdout is no terminal: JSON lines only`, async () => {
      const { code, stdout, stderr } = await serve(['--config', config, '--port', '0'], { NODE_ENV: env }, '"msg":"ObjectQL started"');
      expect(code, stderr).to.equal(0);
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines.length).to.be.greaterThan(0);
      for (const line of lines) expect(() => JSON.parse(line) as unknown, line).to.not.throw();
    });
  }

  it('is printed for a terminal or in development, never in production', () => {
    expect(wantsBanner({ env: undefined, stdoutIsTTY: true })).to.equal(true);
    expect(wantsBanner({ env: 'development', stdoutIsTTY: false })).to.equal(true);
    expect(wantsBanner({ env: 'test', stdoutIsTTY: false })).to.equal(false);
    expect(wantsBanner({ env: 'production', stdoutIsTTY: true })).to.equal(false);
  });
});
