/**
 * expand and aggregation end to end over JSON-RPC, against test/fixtures/query-app:
 * item → category → group → region → zone (lookups), item → labels (lookup, multiple).
 */
import { expect } from 'chai';
import { resolve } from 'node:path';
import type { Datasource } from '../../../kernel/drivers';
import { startServer, type TestServer } from '../../helpers/server';

const APP = resolve(__dirname, '../../fixtures/query-app');
const USER = { id: 'alice', roles: ['member'] };
type Row = Record<string, any>;

describe('JSON-RPC expand and aggregation (query-app)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ metadata: [APP], security: { allowBodyUser: true } });
  });
  after(async () => {
    await s?.stop();
  });

  async function call(args: Record<string, unknown>, object = 'item') {
    return s.rpc({ op: 'find', object, args, user: USER });
  }
  async function find(args: Record<string, unknown>, object = 'item'): Promise<{ items: Row[]; meta: Row }> {
    const res = await call(args, object);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }
  async function one(id: string, expand: unknown, fields?: string[]): Promise<Row> {
    const { items } = await find({ filters: [['id', '=', id]], fields, expand });
    expect(items).to.have.length(1);
    return items[0];
  }
  async function expectInvalid(args: Record<string, unknown>, code: string, mention: string) {
    const res = await call(args);
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal(code);
    expect(res.body.error.message).to.contain(mention);
  }
  /** Counts the default datasource's find calls made while fn runs. */
  async function countFinds(fn: () => Promise<unknown>): Promise<number> {
    const ds = s.kernel.resolve('datasources').get('default');
    const orig = ds.find.bind(ds);
    let calls = 0;
    ds.find = (...a: Parameters<Datasource['find']>) => {
      calls++;
      return orig(...a);
    };
    try {
      await fn();
    } finally {
      ds.find = orig;
    }
    return calls;
  }

  describe('expand', () => {
    it('inlines a single lookup', async () => {
      const item = await one('it-01', { category: {} }, ['name', 'category']);
      expect(item).to.deep.include({ id: 'it-01', name: 'Alpha' });
      expect(item.category).to.deep.include({ id: 'cat-a', name: 'Tools', kind: 'physical', group: 'gr-1' });
      expect((await one('it-04', { category: {} })).category).to.equal(null);
    });

    it('inlines a multiple lookup as a list in the record order', async () => {
      const item = await one('it-06', { labels: {} });
      expect(item.labels.map((l: Row) => [l.id, l.name])).to.deep.equal([
        ['lb-1', 'New'],
        ['lb-3', 'Old'],
      ]);
      expect((await one('it-10', { labels: {} })).labels ?? []).to.deep.equal([]);
    });

    it('fetches the relation even when fields leaves it out, and projects inside expand', async () => {
      const item = await one('it-02', { category: { fields: ['name'] }, labels: { fields: ['color'] } }, ['name']);
      expect(item).to.deep.equal({
        id: 'it-02',
        name: 'alpha',
        category: { id: 'cat-a', name: 'Tools' },
        labels: [{ id: 'lb-2', color: 'red' }],
      });
    });

    it('filters inside expand: a related record that does not match reads as null', async () => {
      const { items } = await find({
        fields: ['name'],
        sort: 'id',
        expand: { category: { fields: ['kind'], filters: [['kind', '=', 'physical']] } },
      });
      const byId = Object.fromEntries(items.map((r) => [r.id, r.category?.id ?? null]));
      expect(byId).to.deep.equal({
        'it-01': 'cat-a',
        'it-02': 'cat-a',
        'it-03': null,
        'it-04': null,
        'it-05': null,
        'it-06': null,
        'it-07': 'cat-a',
        'it-08': 'cat-d',
        'it-09': null,
        'it-10': null,
        'it-11': 'cat-a',
        'it-12': null,
      });
      const labelled = await one('it-01', { labels: { filters: { color: 'green' } } });
      expect(labelled.labels.map((l: Row) => l.id)).to.deep.equal(['lb-1']);
    });

    it('nests three levels; an empty link at any level is null', async () => {
      const expand = { category: { fields: ['name'], expand: { group: { expand: { region: { fields: ['name', 'zone'] } } } } } };
      const { items } = await find({
        filters: [['id', 'in', ['it-01', 'it-03', 'it-06', 'it-08']]],
        fields: ['category'],
        sort: 'id',
        expand,
      });
      const path = (r: Row) =>
        [r.category?.name, r.category?.group?.name, r.category?.group?.region?.name, r.category?.group?.region?.zone].map((v) => v ?? null);
      expect(items.map(path)).to.deep.equal([
        ['Tools', 'Hardware', 'Europe', 'zn-1'],
        ['Apps', 'Software', 'Asia', null],
        ['Consulting', 'Services', null, null],
        ['Orphan', null, null, null],
      ]);
      expect(items[2].category.group.region).to.equal(null);
      expect(items[3].category.group).to.equal(null);
      expect(items[0].category.group.region).to.deep.equal({ id: 'rg-1', name: 'Europe', zone: 'zn-1' });
    });

    it('refuses a fourth level with 400 EXPAND_DEPTH_EXCEEDED, before any query runs', async () => {
      const expand = { category: { expand: { group: { expand: { region: { expand: { zone: {} } } } } } } };
      const calls = await countFinds(() => expectInvalid({ expand }, 'EXPAND_DEPTH_EXCEEDED', '3'));
      expect(calls).to.equal(0);
      await expectInvalid({ expand: { name: {} } }, 'INVALID_REQUEST', 'name');
      await expectInvalid({ expand: { nope: {} } }, 'INVALID_REQUEST', 'nope');
    });

    it('batches: one query per relation and level, whatever the number of rows', async () => {
      const args = { sort: 'id', filters: [['id', 'startswith', 'it-']], expand: { category: { expand: { group: {} } } } };
      let body: { items: Row[] } = { items: [] };
      expect(await countFinds(async () => (body = await find(args)))).to.equal(1 + 2);
      expect(body.items).to.have.length(12);
      expect(body.items.filter((r) => r.category?.group?.id === 'gr-1').map((r) => r.id)).to.deep.equal([
        'it-01',
        'it-02',
        'it-07',
        'it-11',
      ]);

      const both = { ...args, expand: { category: { expand: { group: { expand: { region: {} } } } }, labels: {} } };
      expect(await countFinds(() => find(both))).to.equal(1 + 4);
    });

    it('reads a dangling reference as null', async () => {
      const post = (op: string, object: string, args: unknown) => s.rpc({ op, object, args, user: USER });
      expect((await post('create', 'category', { id: 'cat-tmp', name: 'Temporary' })).status).to.equal(200);
      expect((await post('create', 'label', { id: 'lb-tmp', name: 'Temporary' })).status).to.equal(200);
      expect(
        (await post('create', 'item', { id: 'dangle', name: 'Dangling', category: 'cat-tmp', labels: ['lb-tmp', 'lb-2'] })).status,
      ).to.equal(200);
      try {
        expect((await post('delete', 'category', { id: 'cat-tmp' })).status).to.equal(200);
        expect((await post('delete', 'label', { id: 'lb-tmp' })).status).to.equal(200);
        const item = await one('dangle', { category: {}, labels: { fields: ['name'] } }, ['category', 'labels']);
        expect(item).to.deep.equal({ id: 'dangle', category: null, labels: [{ id: 'lb-2', name: 'Sale' }] });
      } finally {
        await post('delete', 'item', { id: 'dangle' });
      }
    });
  });

  describe('aggregation', () => {
    const stats = [
      { func: 'count', alias: 'n' },
      { func: 'sum', field: 'qty', alias: 'total' },
      { func: 'avg', field: 'qty', alias: 'mean' },
      { func: 'min', field: 'qty', alias: 'low' },
      { func: 'max', field: 'qty', alias: 'high' },
    ];

    it('groups by one field: count without a field, sum, avg, min, max; a null key is a group', async () => {
      const { items, meta } = await find({ groupBy: ['status'], aggregate: stats, sort: 'status' });
      expect(items).to.deep.equal([
        { status: null, n: 1, total: null, mean: null, low: null, high: null },
        { status: 'closed', n: 3, total: 90, mean: 30, low: 20, high: 45 },
        { status: 'open', n: 5, total: 90, mean: 18, low: -5, high: 40 },
        { status: 'pending', n: 3, total: 40, mean: 40 / 3, low: 0, high: 35 },
      ]);
      expect(meta).to.include({ total: 4 });
    });

    it('groups by two fields', async () => {
      const { items } = await find({
        groupBy: ['status', 'active'],
        aggregate: [{ func: 'count', alias: 'n' }],
        sort: [
          ['status', 'asc'],
          ['active', 'asc'],
        ],
      });
      expect(items).to.deep.equal([
        { status: null, active: null, n: 1 },
        { status: 'closed', active: null, n: 1 },
        { status: 'closed', active: false, n: 2 },
        { status: 'open', active: null, n: 2 },
        { status: 'open', active: true, n: 3 },
        { status: 'pending', active: false, n: 2 },
        { status: 'pending', active: true, n: 1 },
      ]);
    });

    it('sorts by an alias (descending puts nulls last) and takes top', async () => {
      const args = {
        groupBy: ['status'],
        aggregate: [{ func: 'sum', field: 'qty', alias: 'total' }],
        sort: [
          ['total', 'desc'],
          ['status', 'asc'],
        ],
      };
      expect((await find(args)).items.map((r) => [r.status, r.total])).to.deep.equal([
        ['closed', 90],
        ['open', 90],
        ['pending', 40],
        [null, null],
      ]);
      expect((await find({ ...args, top: 2 })).items.map((r) => r.status)).to.deep.equal(['closed', 'open']);
      expect((await find({ ...args, sort: '-total, status', top: 1, skip: 2 })).items).to.deep.equal([{ status: 'pending', total: 40 }]);
    });

    it('meta counts every group when top and skip page through them', async () => {
      const args = { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], sort: 'status', top: 3 };
      const first = await find(args);
      expect(first.items.map((r) => r.status)).to.deep.equal([null, 'closed', 'open']);
      expect(first.meta).to.deep.equal({ total: 4, page: 1, size: 3, pages: 2, has_next: true });
      const second = await find({ ...args, skip: 3 });
      expect(second.items).to.deep.equal([{ status: 'pending', n: 3 }]);
      expect(second.meta).to.deep.equal({ total: 4, page: 2, size: 3, pages: 2, has_next: false });
      expect((await find({ ...args, filters: { status: 'open' } })).meta).to.deep.equal({
        total: 1,
        page: 1,
        size: 3,
        pages: 1,
        has_next: false,
      });
    });

    it('aggregates without groupBy into one row; count of a field skips nulls', async () => {
      const { items } = await find({
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'count', field: 'budget', alias: 'with_budget' },
          { func: 'sum', field: 'budget', alias: 'budget' },
          { func: 'min', field: 'due', alias: 'first_due' },
          { func: 'max', field: 'name', alias: 'last_name' },
        ],
      });
      expect(items).to.deep.equal([{ n: 12, with_budget: 9, budget: 1685, first_due: '1999-12-31', last_name: 'snake_case' }]);
    });

    it('aggregates only the filtered records', async () => {
      const { items } = await find({
        filters: [['owner', '=', '$current_user']],
        groupBy: ['category'],
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'sum', field: 'price', alias: 'spent' },
          { func: 'max', field: 'due', alias: 'latest' },
        ],
        sort: 'category',
      });
      expect(items.map((r) => [r.category, r.n, r.latest])).to.deep.equal([
        ['cat-a', 1, '2024-01-01'],
        ['cat-b', 2, '2024-12-31'],
        ['cat-c', 1, '2000-01-01'],
      ]);
      expect(items[0].spent).to.be.closeTo(9.99, 1e-9);
      expect(items[1].spent).to.equal(5);
      const none = await find({
        filters: { owner: 'nobody' },
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'sum', field: 'qty', alias: 's' },
        ],
      });
      expect(none.items).to.deep.equal([{ n: 0, s: null }]);
    });

    it('rejects an unknown function, sum of a text field, a duplicate alias, an unknown group field', async () => {
      await expectInvalid({ groupBy: ['status'], aggregate: [{ func: 'median', field: 'qty', alias: 'm' }] }, 'INVALID_REQUEST', 'median');
      await expectInvalid({ aggregate: [{ func: 'sum', field: 'name', alias: 's' }] }, 'INVALID_REQUEST', 'name');
      await expectInvalid({ aggregate: [{ func: 'avg', field: 'due', alias: 'a' }] }, 'INVALID_REQUEST', 'due');
      await expectInvalid(
        {
          aggregate: [
            { func: 'count', alias: 'x' },
            { func: 'max', field: 'qty', alias: 'x' },
          ],
        },
        'INVALID_REQUEST',
        "'x'",
      );
      await expectInvalid({ groupBy: ['status'], aggregate: [{ func: 'count', alias: 'status' }] }, 'INVALID_REQUEST', "'status'");
      await expectInvalid({ groupBy: ['nope'], aggregate: [{ func: 'count', alias: 'n' }] }, 'INVALID_REQUEST', 'nope');
      await expectInvalid({ groupBy: ['tags'], aggregate: [{ func: 'count', alias: 'n' }] }, 'INVALID_REQUEST', 'tags');
      await expectInvalid({ groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], sort: 'nope' }, 'INVALID_REQUEST', 'nope');
    });
  });
});
