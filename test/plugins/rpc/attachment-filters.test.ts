/**
 * Null tests on attachment fields end to end: JSON-RPC over real HTTP, through the engine, to each
 * store (memory, SQLite, and PostgreSQL / MySQL when reachable). Spec "Attachment fields": an empty
 * attachment is null, `[f, '!=', null]` selects records with an attachment and `[f, '=', null]`
 * those without; on a multiple field an empty list counts as no attachment.
 */
import { expect } from 'chai';
import { resolve } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';
import { DIALECTS, openNamespace, requireDialect, type Namespace } from '../../drivers/sql/helpers';

const APP = resolve(__dirname, '../../fixtures/attachments-app');
const USER = { id: 'alice', roles: ['member'] };

const PDF = { name: 'contract.pdf', url: '/api/files/f-1', size: 48213, type: 'application/pdf', uploaded_at: '2024-05-01T10:00:00.000Z' };
const SCAN = { id: 'f-2', name: 'scan.tiff', url: '/api/files/f-2', size: 9, type: 'image/tiff' };
const PNG = {
  id: 'i-1',
  name: 'logo.png',
  url: '/api/files/i-1',
  size: 512,
  type: 'image/png',
  width: 64,
  height: 64,
  variants: { small: '/api/files/i-1/s' },
};
const JPG = { id: 'i-2', name: 'photo.jpg', url: '/api/files/i-2', size: 2048, type: 'image/jpeg', width: 800, height: 600 };

const DOCS = [
  { id: 'd-full', name: 'everything', contract: PDF, scans: [SCAN, PDF], logo: PNG, photos: [JPG, PNG] },
  { id: 'd-mixed', name: 'some', contract: PDF, photos: [JPG] },
  { id: 'd-empty', name: 'empty lists', scans: [], photos: [] },
  { id: 'd-nulls', name: 'nulls', contract: null, scans: null, logo: null, photos: null },
  { id: 'd-none', name: 'nothing given' },
];
const ALL = DOCS.map((d) => d.id).sort();

/** Per field (file, multiple file, image, multiple image): the records holding an attachment. */
const WITH: Record<string, string[]> = {
  contract: ['d-full', 'd-mixed'],
  scans: ['d-full'],
  logo: ['d-full'],
  photos: ['d-full', 'd-mixed'],
};
const without = (field: string) => ALL.filter((id) => !WITH[field].includes(id));

for (const label of ['memory', ...DIALECTS] as const) {
  describe(`JSON-RPC null filters on attachment fields (${label})`, function () {
    let ns: Namespace | undefined;
    let s: TestServer | undefined;

    async function call(op: string, args: unknown): Promise<any> {
      const res = await s!.rpc({ op, object: 'document', args, user: USER });
      expect(res.status, `${op} ${JSON.stringify(args)}: ${JSON.stringify(res.body)}`).to.equal(200);
      return res.body;
    }
    async function ids(filters: unknown): Promise<string[]> {
      const body = await call('find', { filters, fields: ['name'], sort: [['id', 'asc']] });
      const found = body.items.map((r: { id: string }) => r.id);
      expect((await call('count', { filters })).count, `count ${JSON.stringify(filters)}`).to.equal(found.length);
      return found;
    }

    before(async function () {
      if (label !== 'memory') {
        await requireDialect(this, label);
        ns = await openNamespace(label);
      }
      const datasources = ns ? { datasources: { default: ns.config() } } : {};
      s = await startServer({ metadata: [APP], security: { allowBodyUser: true }, ...datasources });
      for (const doc of DOCS) await call('create', doc);
    });
    after(async () => {
      await s?.stop();
      await ns?.drop();
    });

    it("[f, '!=', null] selects records with an attachment, [f, '=', null] those without", async () => {
      for (const field of Object.keys(WITH)) {
        expect(await ids([[field, '!=', null]]), `${field} != null`).to.deep.equal(WITH[field]);
        expect(await ids([[field, '=', null]]), `${field} = null`).to.deep.equal(without(field));
      }
    });

    it('combines null tests with and, or and not', async () => {
      expect(
        await ids([
          ['contract', '!=', null],
          ['scans', '=', null],
        ]),
      ).to.deep.equal(['d-mixed']);
      expect(await ids([['logo', '!=', null], 'or', ['scans', '!=', null]])).to.deep.equal(['d-full']);
      expect(await ids(['not', [['photos', '=', null]]])).to.deep.equal(['d-full', 'd-mixed']);
      expect(await ids(['not', [['contract', '!=', null]]])).to.deep.equal(without('contract'));
    });

    it('returns attachment objects and lists as written', async () => {
      const fields = ['contract', 'scans', 'logo', 'photos'];
      const body = await call('find', { filters: [['id', 'in', ['d-full', 'd-empty']]], fields, sort: [['id', 'asc']] });
      expect(body.items).to.have.length(2);
      const [empty, full] = body.items;
      expect(full).to.deep.include({ id: 'd-full', contract: PDF, scans: [SCAN, PDF], logo: PNG, photos: [JPG, PNG] });
      expect(empty).to.deep.include({ id: 'd-empty', scans: [], photos: [] });
    });

    it('moves a record between the two sets when its attachments are set and cleared', async () => {
      await call('create', { id: 'd-temp', name: 'temporary', contract: PDF, photos: [PNG] });
      try {
        expect(await ids([['contract', '!=', null]])).to.include('d-temp');
        expect(await ids([['photos', '!=', null]])).to.include('d-temp');
        const cleared = await call('update', { id: 'd-temp', data: { contract: null, photos: [] } });
        expect(cleared).to.deep.include({ contract: null, photos: [] });
        expect(await ids([['contract', '!=', null]])).to.deep.equal(WITH.contract);
        expect(await ids([['photos', '!=', null]])).to.deep.equal(WITH.photos);
        expect(
          await ids([
            ['contract', '=', null],
            ['photos', '=', null],
          ]),
        ).to.include('d-temp');
      } finally {
        await call('delete', { id: 'd-temp' });
      }
    });
  });
}
