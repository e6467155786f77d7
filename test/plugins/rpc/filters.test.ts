/**
 * The filter language end to end over JSON-RPC, against test/fixtures/query-app (twelve items,
 * it-01 .. it-12; it-04 has every optional field empty). Every test asserts the exact set of ids.
 */
import { expect } from 'chai';
import { resolve } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';

const APP = resolve(__dirname, '../../fixtures/query-app');
const ALICE = { id: 'alice', roles: ['manager', 'member'] };
const ALL = ['it-01', 'it-02', 'it-03', 'it-04', 'it-05', 'it-06', 'it-07', 'it-08', 'it-09', 'it-10', 'it-11', 'it-12'];
const ANONYMOUS = 'anonymous';
const except = (...ids: string[]) => ALL.filter((id) => !ids.includes(id));

describe('JSON-RPC filters (query-app)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ metadata: [APP], security: { allowBodyUser: true } });
  });
  after(async () => {
    await s?.stop();
  });

  async function find(args: Record<string, unknown>, user: unknown = ALICE) {
    const res = await s.rpc({ op: 'find', object: 'item', args, user: user === ANONYMOUS ? undefined : user });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { items: Array<Record<string, unknown>>; meta: Record<string, unknown> };
  }
  async function ids(filters: unknown, user: unknown = ALICE): Promise<string[]> {
    const body = await find({ filters, fields: ['name'], sort: [['id', 'asc']], top: 1000 }, user);
    return body.items.map((r) => r.id as string);
  }
  async function expectIds(filters: unknown, expected: string[], user: unknown = ALICE) {
    expect(await ids(filters, user), JSON.stringify(filters)).to.deep.equal([...expected].sort());
  }
  async function expectInvalid(filters: unknown, mention: string) {
    const res = await s.rpc({ op: 'find', object: 'item', args: { filters }, user: ALICE });
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('INVALID_REQUEST');
    expect(res.body.error.message).to.contain(mention);
  }

  describe('comparison operators', () => {
    it('= != > >= < <= on a number field (nulls only match !=)', async () => {
      await expectIds([['qty', '=', 25]], ['it-07']);
      await expectIds([['qty', '!=', 25]], except('it-07'));
      await expectIds([['qty', '>', 30]], ['it-08', 'it-09', 'it-10']);
      await expectIds([['qty', '>=', 30]], ['it-03', 'it-08', 'it-09', 'it-10']);
      await expectIds([['qty', '<', 5]], ['it-11', 'it-12']);
      await expectIds([['qty', '<=', 5]], ['it-05', 'it-11', 'it-12']);
    });

    it('currency, percent and boolean fields', async () => {
      await expectIds([['price', '=', 100]], ['it-07', 'it-08']);
      await expectIds([['price', '<', 3]], ['it-05', 'it-06', 'it-11']);
      await expectIds([['ratio', '<=', 0]], ['it-02', 'it-11']);
      await expectIds([['ratio', '>', 25]], ['it-01', 'it-03']);
      await expectIds([['active', '=', true]], ['it-01', 'it-03', 'it-06', 'it-08']);
      await expectIds([['active', '=', false]], ['it-02', 'it-05', 'it-07', 'it-11']);
      await expectIds([['active', '!=', true]], except('it-01', 'it-03', 'it-06', 'it-08'));
    });

    it('in and not in on a select field (not in matches nulls)', async () => {
      await expectIds([['status', 'in', ['open', 'pending']]], ['it-01', 'it-03', 'it-05', 'it-06', 'it-08', 'it-09', 'it-11', 'it-12']);
      await expectIds([['status', 'not in', ['open', 'pending']]], ['it-02', 'it-04', 'it-07', 'it-10']);
      await expectIds([['status', '!=', 'open']], ['it-02', 'it-04', 'it-05', 'it-07', 'it-08', 'it-10', 'it-11']);
    });

    it('date, datetime and time fields, between inclusive at both ends', async () => {
      await expectIds([['due', '>', '2024-01-01']], ['it-02', 'it-03', 'it-07', 'it-08', 'it-11']);
      await expectIds([['due', '<', '2000-01-01']], ['it-05']);
      await expectIds([['due', '=', '2024-02-29']], ['it-02']);
      await expectIds([['due', 'between', ['2024-01-01', '2024-02-29']]], ['it-01', 'it-02', 'it-11', 'it-12']);
      await expectIds([['qty', 'between', [10, 30]]], ['it-01', 'it-02', 'it-03', 'it-06', 'it-07']);
      await expectIds([['happened_at', '>=', '2024-01-01T00:00:00Z']], ['it-01', 'it-02', 'it-03']);
      await expectIds([['happened_at', '<', '2000-01-01']], ['it-05']);
      await expectIds([['happened_at', 'between', ['1999-12-31T23:59:59.999Z', '2000-01-01T00:00:00+00:00']]], ['it-05', 'it-06']);
      await expectIds([['at_time', '=', '08:00']], ['it-01']);
      await expectIds([['at_time', '>=', '12:00']], ['it-02', 'it-03']);
      await expectIds([['at_time', '<', '08:00:00']], ['it-05']);
    });
  });

  describe('text operators', () => {
    it('= is case-sensitive', async () => {
      await expectIds([['name', '=', 'alpha']], ['it-02']);
      await expectIds([['name', '=', 'Alpha']], ['it-01']);
      await expectIds([['name', 'in', ['ALPHA beta', 'beta']]], ['it-03']);
    });

    it('like: anchored, case-insensitive, % and _ wildcards, \\ escapes', async () => {
      await expectIds([['name', 'like', 'alpha']], ['it-01', 'it-02']);
      await expectIds([['name', 'like', 'alpha%']], ['it-01', 'it-02', 'it-03']);
      await expectIds([['name', 'like', '%BETA']], ['it-03', 'it-04']);
      await expectIds([['name', 'like', '_amma%']], ['it-09', 'it-10']);
      await expectIds([['name', 'like', '100%']], ['it-05', 'it-06']);
      await expectIds([['name', 'like', '100\\%%']], ['it-05']);
      await expectIds([['name', 'like', 'snake_case']], ['it-07', 'it-08']);
      await expectIds([['name', 'like', 'snake\\_case']], ['it-07']);
      await expectIds([['name', 'like', '%\\_%']], ['it-07']);
      await expectIds([['notes', 'like', '%\\% off']], ['it-05']);
    });

    it('startswith, endswith, contains: case-insensitive and literal', async () => {
      await expectIds([['name', 'startswith', 'alpha']], ['it-01', 'it-02', 'it-03']);
      await expectIds([['name', 'startswith', '100%']], ['it-05']);
      await expectIds([['name', 'endswith', 'BETA']], ['it-03', 'it-04']);
      await expectIds([['name', 'contains', 'AMM']], ['it-09', 'it-10']);
      await expectIds([['name', 'contains', '_']], ['it-07']);
      await expectIds([['name', 'contains', '%']], ['it-05']);
      await expectIds([['notes', 'contains', 'note']], ['it-01', 'it-02']);
      await expectIds([['contact', 'endswith', 'EXAMPLE.com']], ['it-01', 'it-02']);
    });
  });

  describe('nulls', () => {
    it('= null and != null', async () => {
      const withNotes = ['it-01', 'it-02', 'it-03', 'it-05'];
      await expectIds([['notes', '=', null]], except(...withNotes));
      await expectIds([['notes', '!=', null]], withNotes);
      await expectIds([['category', '=', null]], ['it-04']);
      await expectIds([['extra', '!=', null]], ['it-01', 'it-10']);
      await expectIds([['extra', '=', null]], except('it-01', 'it-10'));
      await expectIds({ owner: null }, ['it-04', 'it-11']);
    });

    it('!= and not in also match records where the field is null', async () => {
      await expectIds([['owner', '!=', 'alice']], ['it-02', 'it-04', 'it-05', 'it-07', 'it-08', 'it-09', 'it-10', 'it-11']);
      await expectIds([['owner', 'not in', ['alice', 'bob']]], ['it-04', 'it-05', 'it-09', 'it-10', 'it-11']);
      await expectIds([['due', '!=', '2024-01-01']], except('it-01', 'it-12'));
    });
  });

  describe('multiple-value fields', () => {
    it('= and in match when any element matches; = null matches empty', async () => {
      await expectIds([['tags', '=', 'red']], ['it-01', 'it-06']);
      await expectIds([['tags', 'in', ['red', 'blue']]], ['it-01', 'it-02', 'it-05', 'it-06', 'it-08']);
      await expectIds([['labels', '=', 'lb-2']], ['it-01', 'it-02', 'it-09']);
      await expectIds([['labels', 'in', ['lb-1', 'lb-3']]], ['it-01', 'it-03', 'it-05', 'it-06']);
      await expectIds([['tags', '=', null]], ['it-04', 'it-07', 'it-09', 'it-10', 'it-11', 'it-12']);
    });

    it('!= and not in match when no element matches, nulls included', async () => {
      await expectIds([['tags', '!=', 'green']], except('it-01', 'it-03', 'it-05'));
      await expectIds([['tags', 'not in', ['green', 'blue']]], ['it-04', 'it-06', 'it-07', 'it-09', 'it-10', 'it-11', 'it-12']);
      await expectIds([['labels', 'not in', ['lb-1', 'lb-2']]], ['it-03', 'it-04', 'it-07', 'it-08', 'it-10', 'it-11', 'it-12']);
    });
  });

  describe('logic', () => {
    it('and binds tighter than or; brackets regroup', async () => {
      await expectIds(
        [['status', '=', 'open'], 'or', ['status', '=', 'closed'], 'and', ['qty', '>', 30]],
        ['it-01', 'it-03', 'it-06', 'it-09', 'it-10', 'it-12'],
      );
      await expectIds([[['status', '=', 'open'], 'or', ['status', '=', 'closed']], 'and', ['qty', '>', 30]], ['it-09', 'it-10']);
      await expectIds([['qty', '>', 30], 'and', ['status', '=', 'closed'], 'or', ['owner', '=', 'carol']], ['it-05', 'it-09', 'it-10']);
    });

    it('adjacent conditions without a joiner are and-ed', async () => {
      await expectIds(
        [
          ['status', '=', 'open'],
          ['qty', '>', 20],
        ],
        ['it-03', 'it-09'],
      );
      await expectIds([['status', '=', 'open'], ['qty', '>', 20], 'or', ['name', '=', 'Beta']], ['it-03', 'it-04', 'it-09']);
    });

    it('nested groups several levels deep', async () => {
      await expectIds(
        [
          [['owner', '=', 'alice'], 'and', ['qty', '>=', 15]],
          'or',
          [['owner', '=', 'bob'], 'and', [['active', '=', true], 'or', ['qty', '<', 21]]],
        ],
        ['it-02', 'it-03', 'it-06', 'it-08'],
      );
    });

    it("['not', [...]] negates a condition or a group (nulls included)", async () => {
      await expectIds(['not', ['status', '=', 'open']], ['it-02', 'it-04', 'it-05', 'it-07', 'it-08', 'it-10', 'it-11']);
      await expectIds(['not', [['status', '=', 'open'], 'or', ['qty', '<', 10]]], ['it-02', 'it-04', 'it-07', 'it-08', 'it-10']);
      await expectIds([['owner', '=', 'bob'], 'and', ['not', ['active', '=', true]]], ['it-02', 'it-07']);
    });

    it('map form: a value means =, [op, value] any operator', async () => {
      await expectIds({ status: 'open', qty: ['>', 5] }, ['it-01', 'it-03', 'it-06', 'it-09']);
      await expectIds({ status: ['in', ['closed', 'pending']] }, ['it-02', 'it-05', 'it-07', 'it-08', 'it-10', 'it-11']);
      await expectIds({ name: ['like', 'snake\\_%'], owner: 'bob' }, ['it-07']);
      await expectIds({ tags: 'blue', active: false }, ['it-02', 'it-05']);
    });

    it('count takes the same filters', async () => {
      const res = await s.rpc({
        op: 'count',
        object: 'item',
        args: { filters: [['status', '=', 'open'], 'or', ['qty', '<', 10]] },
        user: ALICE,
      });
      expect(res.body).to.deep.equal({ count: 7, '@type': 'item' });
    });
  });

  describe('field-to-field and special values', () => {
    it('a bare field name on a numeric field, and {$field}', async () => {
      await expectIds([['actual_cost', '>', 'budget']], ['it-01', 'it-08', 'it-11']);
      await expectIds([['actual_cost', '>', { $field: 'budget' }]], ['it-01', 'it-08', 'it-11']);
      await expectIds([['actual_cost', '=', { $field: 'budget' }]], ['it-02', 'it-06', 'it-09']);
      await expectIds([['actual_cost', '<', { $field: 'budget' }]], ['it-03', 'it-07']);
      await expectIds({ budget: ['<=', { $field: 'actual_cost' }] }, ['it-01', 'it-02', 'it-06', 'it-08', 'it-09', 'it-11']);
    });

    it('a bare string on a text field stays a literal', async () => {
      await expectIds([['owner', '=', 'audience']], []);
    });

    it('$current_user, $current_user.role and $current_user.<key>', async () => {
      await expectIds([['owner', '=', '$current_user']], ['it-01', 'it-03', 'it-06', 'it-12']);
      await expectIds([['owner', '=', '$current_user']], ['it-02', 'it-07', 'it-08'], { id: 'bob', roles: [] });
      await expectIds([['audience', '=', '$current_user.role']], ['it-01', 'it-02', 'it-05', 'it-07']);
      await expectIds([['audience', '!=', '$current_user.role']], except('it-01', 'it-02', 'it-05', 'it-07'));
      await expectIds([['audience', '=', '$current_user.role']], ['it-03'], { id: 'root', roles: ['admin'] });
      await expectIds([['owner', '=', '$current_user.buddy']], ['it-05', 'it-09'], { id: 'alice', roles: [], buddy: 'carol' });
    });

    it('a special the caller lacks matches nothing with = (never a null test)', async () => {
      await expectIds([['owner', '=', '$current_user']], [], ANONYMOUS);
      await expectIds([['audience', '=', '$current_user.role']], [], ANONYMOUS);
      await expectIds([['owner', '=', '$current_user.buddy']], [], ALICE);
      await expectIds([['audience', '=', '$current_user.role']], [], { id: 'zed', roles: [] });
      await expectIds([['owner', '=', '$current_user'], 'or', ['owner', '=', null]], ['it-04', 'it-11'], ANONYMOUS);
    });

    it('$today on a date field and $now on a datetime field', async () => {
      const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
      const records = [
        { id: 'rel-yesterday', name: 'rel yesterday', due: day(-1), happened_at: at(-3_600_000) },
        { id: 'rel-today', name: 'rel today', due: day(0) },
        { id: 'rel-tomorrow', name: 'rel tomorrow', due: day(1), happened_at: at(3_600_000) },
      ];
      for (const r of records) expect((await s.rpc({ op: 'create', object: 'item', args: r, user: ALICE })).status).to.equal(200);
      try {
        const rel = (f: unknown[]) => [['name', 'startswith', 'rel '], f];
        await expectIds(rel(['due', '=', '$today']), ['rel-today']);
        await expectIds(rel(['due', '<', '$today']), ['rel-yesterday']);
        await expectIds(rel(['due', '>=', '$today']), ['rel-today', 'rel-tomorrow']);
        await expectIds(rel(['happened_at', '<', '$now']), ['rel-yesterday']);
        await expectIds(rel(['happened_at', '>', '$now']), ['rel-tomorrow']);
        await expectIds(rel(['due', 'between', ['$today', day(5)]]), ['rel-today', 'rel-tomorrow']);
      } finally {
        for (const r of records) await s.rpc({ op: 'delete', object: 'item', args: { id: r.id }, user: ALICE });
      }
    });
  });

  describe('projection, sort and paging', () => {
    it('fields returns only those fields plus id', async () => {
      const { items } = await find({ fields: ['name', 'qty'], filters: [['id', 'in', ['it-01', 'it-04']]], sort: 'id' });
      expect(items).to.deep.equal([
        { id: 'it-01', name: 'Alpha', qty: 10 },
        { id: 'it-04', name: 'Beta', qty: null },
      ]);
    });

    it('sorts nulls first ascending and last descending', async () => {
      const asc = ['it-04', 'it-12', 'it-11', 'it-05', 'it-01', 'it-06', 'it-02', 'it-07', 'it-03', 'it-08', 'it-09', 'it-10'];
      expect((await find({ fields: ['qty'], sort: [['qty', 'asc']] })).items.map((r) => r.id)).to.deep.equal(asc);
      expect((await find({ fields: ['qty'], sort: [['qty', 'desc']] })).items.map((r) => r.id)).to.deep.equal([
        ...asc.slice(1).reverse(),
        'it-04',
      ]);
    });

    it('sorts on several keys, in every sort syntax', async () => {
      const order = ['it-04', 'it-07', 'it-02', 'it-10', 'it-01', 'it-03', 'it-09', 'it-06', 'it-12', 'it-08', 'it-05', 'it-11'];
      for (const sort of [
        [
          ['status', 'asc'],
          ['price', 'desc'],
        ],
        'status, price desc',
        'status,-price',
      ]) {
        expect(
          (await find({ fields: ['name'], sort })).items.map((r) => r.id),
          JSON.stringify(sort),
        ).to.deep.equal(order);
      }
      const byName = ['it-05', 'it-11', 'it-08', 'it-06', 'it-03', 'it-01', 'it-12', 'it-09', 'it-10', 'it-02', 'it-07', 'it-04'];
      expect(
        (
          await find({
            fields: ['name'],
            sort: [
              ['status', 'desc'],
              ['name', 'asc'],
            ],
          })
        ).items.map((r) => r.id),
      ).to.deep.equal(byName);
    });

    it('top and skip page through the results; meta describes the page', async () => {
      const page2 = await find({ fields: ['qty'], sort: [['qty', 'asc']], top: 5, skip: 5 });
      expect(page2.items.map((r) => r.id)).to.deep.equal(['it-06', 'it-02', 'it-07', 'it-03', 'it-08']);
      expect(page2.meta).to.deep.equal({ total: 12, page: 2, size: 5, pages: 3, has_next: true });
      const page3 = await find({ fields: ['qty'], sort: [['qty', 'asc']], top: 5, skip: 10 });
      expect(page3.items.map((r) => r.id)).to.deep.equal(['it-09', 'it-10']);
      expect(page3.meta).to.deep.equal({ total: 12, page: 3, size: 5, pages: 3, has_next: false });
      const filtered = await find({ fields: ['qty'], filters: { status: 'open' }, sort: '-qty', top: 2 });
      expect(filtered.items.map((r) => r.id)).to.deep.equal(['it-09', 'it-03']);
      expect(filtered.meta).to.deep.equal({ total: 5, page: 1, size: 2, pages: 3, has_next: true });
    });
  });

  describe('rejected filters', () => {
    it('an unknown field or operator, a value of the wrong type, an operator the type does not take', async () => {
      await expectInvalid([['nope', '=', 1]], 'nope');
      await expectInvalid([['qty', '~', 1]], '~');
      await expectInvalid([['qty', '=', 'abc']], 'qty');
      await expectInvalid([['due', '>', '2024-13-45']], 'due');
      await expectInvalid([['qty', 'like', '1%']], 'qty');
      await expectInvalid([['tags', 'contains', 're']], 'tags');
      await expectInvalid([['extra', '=', 1]], 'extra');
      await expectInvalid([['status', '=', 'archived']], 'status');
      await expectInvalid([['qty', '>', 1], 'and'], 'joiner');
    });
  });
});
