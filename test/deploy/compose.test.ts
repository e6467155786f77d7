/**
 * docker-compose.yml against what it runs (no Docker engine here): every variable the deploy
 * config reads is set for both instances and points at a service of the file with matching
 * credentials and ports, the load balancer's upstreams are the instances, and every file,
 * volume and dependency it names exists.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { compose, deployConfigVariables, interpolate, read, ROOT } from './deploy-files';

const INSTANCES = ['objectql-1', 'objectql-2'];

describe('deploy: docker-compose.yml', () => {
  const file = compose();
  const services = file.services;
  const env = (name: string) => services[name].environment ?? {};

  it('runs two instances of the image with the deploy config, behind the load balancer', () => {
    for (const name of INSTANCES) {
      const s = services[name];
      expect(s.build, name).to.equal('.');
      expect(s.command, name).to.deep.equal(['node', 'bin/objectql.js', 'serve', '--config', 'deploy/objectql.config.ts']);
      expect(existsSync(resolve(ROOT, 'deploy/objectql.config.ts'))).to.equal(true);
      expect(env(name).NODE_ENV, name).to.equal('production');
      for (const dep of ['postgres', 'redis', 'minio-bucket']) expect(s.depends_on, name).to.have.property(dep);
    }
    expect(services.lb.depends_on).to.have.all.keys(...INSTANCES);
  });

  it('sets every variable the deploy config reads, for both instances', () => {
    const { required, optional } = deployConfigVariables();
    expect(required).to.include.members(['DATABASE_URL', 'REDIS_URL', 'S3_BUCKET', 'OBJECTQL_JWT_SECRET']);
    for (const name of INSTANCES) {
      for (const v of [...required, ...optional]) expect(env(name)[v], `${name}: ${v}`).to.be.a('string').with.length.above(0);
    }
    expect(env('objectql-1')).to.deep.equal(env('objectql-2'));
  });

  it('points the instances at the services of the file, with their credentials and ports', () => {
    const e = env('objectql-1');
    const pg = new URL(e.DATABASE_URL);
    const pgEnv = env('postgres');
    expect(pg.hostname).to.equal('postgres');
    expect(pg.port).to.equal('5432');
    expect(decodeURIComponent(pg.username)).to.equal(pgEnv.POSTGRES_USER ?? 'postgres');
    expect(decodeURIComponent(pg.password)).to.equal(pgEnv.POSTGRES_PASSWORD);
    expect(pg.pathname.slice(1)).to.equal(pgEnv.POSTGRES_DB);
    const redis = new URL(e.REDIS_URL);
    expect([redis.hostname, redis.port]).to.deep.equal(['redis', '6379']);
    const s3 = new URL(e.S3_ENDPOINT);
    expect([s3.hostname, s3.port]).to.deep.equal(['minio', '9000']);
    const minio = env('minio');
    expect([e.S3_ACCESS_KEY_ID, e.S3_SECRET_ACCESS_KEY]).to.deep.equal([minio.MINIO_ROOT_USER, minio.MINIO_ROOT_PASSWORD]);
    const makeBucket = (services['minio-bucket'].command ?? []).join(' ');
    expect(makeBucket).to.include(`http://minio:9000 ${minio.MINIO_ROOT_USER} ${minio.MINIO_ROOT_PASSWORD}`);
    expect(makeBucket).to.include(`mc mb --ignore-existing local/${e.S3_BUCKET}`);
    expect(interpolate(e.OBJECTQL_JWT_SECRET, { OBJECTQL_JWT_SECRET: 'x' })).to.equal('x');
  });

  it('balances over the instances on the port they listen on', () => {
    const nginx = read('deploy/nginx.conf');
    const upstreams = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((m) => [m[1], m[2]]);
    expect(upstreams).to.deep.equal(INSTANCES.map((n) => [n, env(n).PORT]));
    const listen = /^\s*listen\s+(\d+);/m.exec(nginx)?.[1];
    expect(services.lb.ports).to.deep.equal([`${listen}:${listen}`]);
    expect(nginx).to.match(/proxy_set_header Upgrade \$http_upgrade/);
    expect(services.lb.volumes).to.deep.equal(['./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro']);
  });

  it('names only files that exist, volumes that are declared and services that are defined', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const volume of s.volumes ?? []) {
        const source = volume.split(':')[0];
        if (source.startsWith('.')) expect(existsSync(resolve(ROOT, source)), `${name}: ${source}`).to.equal(true);
        else expect(file.volumes, `${name}: ${source}`).to.have.property(source);
      }
      for (const dep of Object.keys(s.depends_on ?? {})) expect(services, `${name} depends on ${dep}`).to.have.property(dep);
    }
  });

  it('keeps the services the tests use: PostgreSQL and Redis published, MySQL and MongoDB in a profile', () => {
    expect(services.postgres.ports).to.deep.equal(['127.0.0.1:5432:5432']);
    expect(services.redis.ports).to.deep.equal(['127.0.0.1:6379:6379']);
    expect(services.mysql.profiles).to.deep.equal(['services']);
    expect(services.mongo.profiles).to.deep.equal(['services']);
  });
});
