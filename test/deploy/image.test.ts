/**
 * The Dockerfile and the deploy config, without a Docker engine: the image runs what `npm start`
 * runs, in production, as a non-root user, and checks a route the server serves; the deploy config
 * with the compose file's variables (hosts swapped for this machine's services: a fresh PostgreSQL
 * database, Redis, a local S3 server) runs as two `objectql serve` processes that share nothing but
 * those: a file uploaded through one downloads through the other, a session made by one works on
 * the other.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import knex from 'knex';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startS3, type TestS3 } from '../helpers/s3-server';
import { startServer } from '../helpers/server';
import { freePort } from '../helpers/free-port';
import { needService, probeRedis, SERVICE_URLS } from '../helpers/services';
import { compose, finalStage, interpolate, read, ROOT } from './deploy-files';

const JWT_SECRET = 'a-deploy-test-secret-of-more-than-32-characters';

describe('deploy: the image and its config', () => {
  const stage = finalStage(read('Dockerfile'));
  const all = (instruction: string) => stage.filter(([i]) => i === instruction).map(([, rest]) => rest);

  it('runs what `npm start` runs, with NODE_ENV=production, as a non-root user', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    // `npm start` is `NODE_ENV=${NODE_ENV:-development} <command>`: the command without the variable.
    const command = start.replace(/^NODE_ENV=\S+\s+/, '').split(/\s+/);
    expect(JSON.parse(all('CMD').pop()!)).to.deep.equal(command);
    expect(all('ENTRYPOINT')).to.deep.equal([]);
    expect(all('ENV').join(' ')).to.match(/\bNODE_ENV=production\b/);
    const user = all('USER').pop();
    expect(user)
      .to.be.a('string')
      .and.not.match(/^(root|0)$/);
  });

  it('checks its health on a route the server serves', async () => {
    const check = all('HEALTHCHECK').pop() ?? '';
    const path = /'(\/health\/[a-z]+)'/.exec(check)?.[1];
    expect(path, check).to.equal('/health/ready');
    const s = await startServer();
    try {
      expect((await s.request('GET', path!)).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });

  describe('the deploy config with the compose variables', function () {
    // Two server processes started one after the other (30 s each at most), beside the whole suite in CI.
    this.timeout(90_000);
    let s3: TestS3 | undefined;
    const instances: Served[] = [];
    let database: string | undefined;
    const saved = new Map<string, string | undefined>();

    before(async function () {
      await needService(this, 'postgres', async (url) => {
        const db = knex({ client: 'pg', connection: url });
        try {
          await db.raw('select 1');
        } finally {
          await db.destroy();
        }
      });
      await needService(this, 'redis', probeRedis);
      database = `objectql_deploy_${randomBytes(4).toString('hex')}`;
      const admin = knex({ client: 'pg', connection: SERVICE_URLS.postgres! });
      try {
        await admin.raw('CREATE DATABASE ??', [database]);
      } finally {
        await admin.destroy();
      }
      s3 = await startS3('objectql');
    });
    after(async () => {
      await Promise.all(instances.map((i) => i.stop()));
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await s3?.close();
      if (database) {
        const admin = knex({ client: 'pg', connection: SERVICE_URLS.postgres! });
        try {
          await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [database]);
        } finally {
          await admin.destroy();
        }
      }
    });

    it('runs as two processes sharing only PostgreSQL, Redis and the bucket: what one stores, the other serves', async () => {
      const env = compose().services['objectql-1'].environment!;
      const pg = new URL(SERVICE_URLS.postgres!);
      pg.pathname = `/${database}`;
      const here: Record<string, string> = {
        DATABASE_URL: pg.toString(),
        REDIS_URL: SERVICE_URLS.redis!,
        S3_ENDPOINT: s3!.endpoint,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      };
      const variables = Object.fromEntries(
        Object.entries(env).map(([name, value]) => [name, here[name] ?? interpolate(value, { OBJECTQL_JWT_SECRET: JWT_SECRET })]),
      );
      // One after the other: the first creates the tables the second then finds.
      for (let i = 0; i < 2; i++) instances.push(await serveDeployConfig(variables));
      const [one, two] = instances;
      for (const url of [one.url, two.url]) expect((await fetch(`${url}/health/ready`)).status).to.equal(200);

      const token = await new SignJWT({ roles: ['manager'] })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('carol')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(JWT_SECRET));
      const auth = { authorization: `Bearer ${token}` };
      // The file goes through one, into the bucket and its record into PostgreSQL; the other serves it.
      const form = new FormData();
      form.append('file', new Blob(['deployed']), 'd.txt');
      const up = await fetch(`${one.url}/api/files/upload`, { method: 'POST', body: form, headers: auth });
      const body = (await up.json()) as { data: { id: string } };
      expect(up.status, JSON.stringify(body)).to.equal(200);
      expect(await (await fetch(`${two.url}/api/files/${body.data.id}`, { headers: auth })).text()).to.equal('deployed');
      expect((await s3!.keys()).some((k) => k.endsWith(body.data.id))).to.equal(true);
      // A session made by one is known to the other: sessions live in Redis.
      const session = await fetch(`${one.url}/api/auth/session`, { method: 'POST', headers: auth });
      expect(session.status).to.equal(201);
      const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0];
      expect(cookie).to.match(/^session_id=/);
      const listed = await fetch(`${two.url}/api/data/project`, { headers: { cookie } });
      expect(listed.status).to.equal(200);
    });
  });
});

interface Served {
  url: string;
  stop(): Promise<void>;
}

/** `node bin/objectql.js serve --config deploy/objectql.config.ts`, as the image's CMD runs it, with `variables` as its environment. */
async function serveDeployConfig(variables: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/objectql.js', 'serve', '--config', 'deploy/objectql.config.ts', '--port', String(port)], {
    cwd: ROOT,
    env: { ...process.env, ...variables, PORT: String(port), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr.on('data', (d: Buffer) => (said += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (
      (await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )) === true
    )
      return { url, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the deploy config did not serve: ${said}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
