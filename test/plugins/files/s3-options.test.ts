/** The s3 storage and `records` options: checked at start-up naming the option, and each choice of records store working. */
import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, USERS } from '../../helpers/server';
import { startS3, type TestS3 } from '../../helpers/s3-server';
import { filesClient } from './client';

async function startError(files: Record<string, unknown>): Promise<string> {
  try {
    const s = await startServer({ plugins: { files } });
    await s.stop();
    return '';
  } catch (err) {
    return String(err);
  }
}

describe('files: s3 and records options', () => {
  let s3: TestS3;
  let dir: string;

  before(async () => {
    s3 = await startS3();
    dir = await mkdtemp(join(tmpdir(), 'oql-files-records-'));
  });
  after(async () => {
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a wrong s3 or records option at start-up, naming it', async () => {
    const base = s3.storage();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ storage: { type: 's3' } }, /storage\.bucket/],
      [{ storage: { ...base, endpoint: 'not a url' } }, /storage\.endpoint/],
      [{ storage: { ...base, forcePathStyle: 'yes' } }, /storage\.forcePathStyle/],
      [{ storage: { ...base, secretAccessKey: undefined } }, /storage\.accessKeyId.*both or neither/],
      [{ storage: { ...base, acl: 'public-read' } }, /acl/],
      [{ storage: base, records: 'disk' }, /records/],
      [{ storage: base, records: 'folder' }, /records: 'folder' needs metadataDir/],
      [{ storage: base, recordsDatasource: 'files' }, /recordsDatasource: no datasource 'files'/],
    ];
    for (const [files, message] of cases) {
      const error = await startError(files);
      expect(error, JSON.stringify(files)).to.match(/Plugin 'files'/);
      expect(error, JSON.stringify(files)).to.match(message);
    }
  });

  it('reports the bucket in /health/ready: up, or down saying why, and the instance is then not ready', async () => {
    const ready = await startServer({ plugins: { files: { storage: s3.storage(), records: 'memory' } } });
    try {
      const res = await ready.request('GET', '/health/ready');
      expect(res.status).to.equal(200);
      const check = (res.body.checks as Array<Record<string, string>>).find((c) => c.kind === 's3');
      expect(check).to.include({ name: s3.bucket, status: 'up' });
    } finally {
      await ready.stop();
    }
    const missing = await startServer({
      plugins: { files: { storage: { ...s3.storage(), bucket: 'no-such-bucket' }, records: 'memory' } },
    });
    try {
      const res = await missing.request('GET', '/health/ready');
      expect(res.status).to.equal(503);
      expect(res.body.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(res.body.error.message).to.include('no-such-bucket');
      const check = (res.body.error.details.checks as Array<Record<string, string>>).find((c) => c.kind === 's3');
      expect(check).to.include({ name: 'no-such-bucket', status: 'down' });
      expect(check?.error).to.match(/bucket 'no-such-bucket' did not answer \(HTTP 404\)/);
    } finally {
      await missing.stop();
    }
  });

  for (const records of ['memory', 'folder', 'datasource'] as const) {
    it(`keeps upload records in ${records} when asked`, async () => {
      const metadataDir = join(dir, `meta-${records}`);
      const s = await startServer(
        { plugins: { files: { storage: s3.storage(records), records, ...(records === 'folder' ? { metadataDir } : {}) } } },
        { identityFromHeader: true },
      );
      try {
        const up = await filesClient(s).upload(USERS.bob, 'kept', 'k.txt');
        const got = await filesClient(s).get(`/${up.id}`, {}, USERS.bob);
        expect(got.buffer.toString()).to.equal('kept');
        expect((await filesClient(s).get(`/${up.id}`, {}, USERS.alice)).status).to.equal(403);
        if (records === 'folder') expect(await readdir(metadataDir)).to.include(`${up.id}.json`);
      } finally {
        await s.stop();
      }
    });
  }
});
