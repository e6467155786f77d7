/** The files plugin's options and its other storage backends. */
import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, USERS } from '../../helpers/server';

const as = (user: object) => ({ 'x-test-user': JSON.stringify(user) });

async function roundTrip(files: Record<string, unknown>, baseDir?: string): Promise<{ upload: any; content: string; status: number }> {
  const s = await startServer({ plugins: { files }, ...(baseDir ? { baseDir } : {}) }, { identityFromHeader: true });
  try {
    const form = new FormData();
    form.append('file', new Blob(['memory content']), 'm.txt');
    const up = (await (await fetch(`${s.url}/api/files/upload`, { method: 'POST', body: form, headers: as(USERS.bob) })).json()) as any;
    const res = await fetch(`${s.url}/api/files/${up.data.id}`, { headers: as(USERS.bob) });
    return { upload: up.data, content: await res.text(), status: res.status };
  } finally {
    await s.stop();
  }
}

describe('files plugin options', () => {
  it('memory storage round-trips a file', async () => {
    const r = await roundTrip({ storage: { type: 'memory' } });
    expect(r.status).to.equal(200);
    expect(r.content).to.equal('memory content');
    expect(r.upload.url).to.equal(`/api/files/${r.upload.id}`);
  });

  it('custom storage (the spec contract) round-trips a file', async () => {
    const saved = new Map<string, Buffer>();
    const module = {
      save(file: Buffer, filename: string) {
        const id = `c${saved.size}-${filename}`;
        saved.set(id, file);
        return Promise.resolve({ id, url: `https://cdn.example/${id}`, size: file.length });
      },
      get: (id: string) => Promise.resolve(saved.get(id) ?? null),
      delete: (id: string) => Promise.resolve(saved.delete(id)),
      getPublicUrl: (id: string) => `https://cdn.example/${id}`,
    };
    const r = await roundTrip({ storage: { type: 'custom', module } });
    expect(r.status).to.equal(200);
    expect(r.content).to.equal('memory content');
    expect(r.upload.url).to.equal(`https://cdn.example/${r.upload.id}`);
    expect(saved.size).to.equal(1);
  });

  it('custom storage named by module path, with options for its factory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oql-custom-'));
    try {
      const storage = { type: 'custom', module: './storage-module/dir-storage.ts', options: { dir, publicBase: 'https://files.example' } };
      const r = await roundTrip({ storage }, __dirname);
      expect(r.status).to.equal(200);
      expect(r.content).to.equal('memory content');
      expect(r.upload.url).to.equal(`https://files.example/${r.upload.id}`);
      expect(await readdir(dir)).to.have.members([r.upload.id, `${r.upload.id}.meta`]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a custom storage module that is missing or exports no backend', async () => {
    for (const [module, message] of [
      ['./storage-module/none.ts', /storage\.module.*none\.ts/],
      ['./storage-module/not-a-backend.ts', /must export a backend/],
    ] as const) {
      let error: unknown;
      try {
        const s = await startServer({ baseDir: __dirname, plugins: { files: { storage: { type: 'custom', module } } } });
        await s.stop();
      } catch (err) {
        error = err;
      }
      expect(String(error), module).to.match(message);
    }
  });

  it('SERVICE_UPLOAD_DIR and SERVICE_BASE_URL set the default folder and the public URLs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oql-env-'));
    const saved = { dir: process.env.SERVICE_UPLOAD_DIR, url: process.env.SERVICE_BASE_URL };
    process.env.SERVICE_UPLOAD_DIR = dir;
    process.env.SERVICE_BASE_URL = 'https://api.example/files/';
    try {
      const r = await roundTrip({});
      expect(r.status).to.equal(200);
      expect(r.upload.url).to.equal(`https://api.example/files/${r.upload.id}`);
      expect(await readdir(dir)).to.include(r.upload.id);
    } finally {
      for (const [key, value] of [
        ['SERVICE_UPLOAD_DIR', saved.dir],
        ['SERVICE_BASE_URL', saved.url],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a full storage is STORAGE_QUOTA_EXCEEDED (507), any other backend failure UPLOAD_FAILED (500)', async () => {
    for (const [thrown, status, code] of [
      [Object.assign(new Error('no space left'), { code: 'ENOSPC' }), 507, 'STORAGE_QUOTA_EXCEEDED'],
      [Object.assign(new Error('quota'), { code: 'STORAGE_QUOTA_EXCEEDED' }), 507, 'STORAGE_QUOTA_EXCEEDED'],
      [new Error('bucket on fire'), 500, 'UPLOAD_FAILED'],
    ] as const) {
      const module = {
        save: () => Promise.reject(thrown),
        get: () => Promise.resolve(null),
        delete: () => Promise.resolve(false),
        getPublicUrl: (id: string) => `/x/${id}`,
      };
      const s = await startServer({ plugins: { files: { storage: { type: 'custom', module } } } }, { identityFromHeader: true });
      try {
        const form = new FormData();
        form.append('file', new Blob(['content']), 'c.txt');
        const res = await fetch(`${s.url}/api/files/upload`, { method: 'POST', body: form, headers: as(USERS.bob) });
        const body = (await res.json()) as any;
        expect(res.status, code).to.equal(status);
        expect(body.error).to.deep.equal({ code, message: body.error.message, details: { file: 'c.txt' } });
        expect(body.error.message).to.contain("'c.txt'").and.not.contain(thrown.message);
      } finally {
        await s.stop();
      }
    }
  });

  it('starts on the sample data (seeded before plugins start) without logging an error', async () => {
    const lines: string[] = [];
    const s = await startServer(
      { logLevel: 'warn', plugins: { files: { storage: { type: 'memory' } } }, datasources: { default: { driver: 'memory' } } },
      { logDestination: { write: (line: string) => lines.push(line) } },
    );
    await s.stop();
    expect(lines.filter((l) => JSON.parse(l).level >= 50)).to.deep.equal([]);
  });

  it('refuses unknown or wrong options at start-up', async () => {
    for (const files of <Array<Record<string, unknown>>>[
      { storage: { type: 's3' } },
      { nope: 1 },
      { storage: { type: 'custom', module: {} } },
      { maxFileSize: -1 },
      { orphanTtl: -1 },
    ]) {
      let error: unknown;
      try {
        const s = await startServer({ plugins: { files } });
        await s.stop();
      } catch (err) {
        error = err;
      }
      expect(String(error), JSON.stringify(files)).to.match(/Plugin 'files'/);
    }
  });
});
