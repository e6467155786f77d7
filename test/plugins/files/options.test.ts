/** The files plugin's options and its other storage backends. */
import { expect } from 'chai';
import { startServer, USERS } from '../../helpers/server';

const as = (user: object) => ({ 'x-test-user': JSON.stringify(user) });

async function roundTrip(files: Record<string, unknown>): Promise<{ upload: any; content: string; status: number }> {
  const s = await startServer({ plugins: { files } }, { identityFromHeader: true });
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
      async save(file: Buffer, filename: string) {
        const id = `c${saved.size}-${filename}`;
        saved.set(id, file);
        return { id, url: `https://cdn.example/${id}`, size: file.length };
      },
      async get(id: string) {
        return saved.get(id) ?? null;
      },
      async delete(id: string) {
        return saved.delete(id);
      },
      getPublicUrl: (id: string) => `https://cdn.example/${id}`,
    };
    const r = await roundTrip({ storage: { type: 'custom', module } });
    expect(r.status).to.equal(200);
    expect(r.content).to.equal('memory content');
    expect(r.upload.url).to.equal(`https://cdn.example/${r.upload.id}`);
    expect(saved.size).to.equal(1);
  });

  it('refuses unknown or wrong options at start-up', async () => {
    for (const files of <Array<Record<string, unknown>>>[{ storage: { type: 's3' } }, { nope: 1 }, { storage: { type: 'custom', module: {} } }, { maxFileSize: -1 }]) {
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
