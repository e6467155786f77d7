/**
 * The list query parameters of GET /:object over real HTTP: filter (array and map form), every
 * sort syntax, top / skip / limit, fields, expand (JSON map, comma list, dotted paths), groupBy
 * and aggregate. The server is only read here, so the seed data decides every answer.
 */
import { expect } from 'chai';
import type { TestServer } from '../../helpers/server';
import { ids, list, ok, rest, startRestServer } from './helpers';

/** Seed tasks by status, then estimate_hours descending. */
const TASKS_BY_STATUS_THEN_ESTIMATE_DESC = [
  'tsk-apollo-api',
  'tsk-gemini-research', // doing: 24, 16
  'tsk-apollo-design',
  'tsk-mercury-handover', // done: 12, 4
  'tsk-apollo-launch',
  'tsk-gemini-kickoff', // todo: 6, 2
];

describe('REST list parameters', () => {
  let s: TestServer;

  before(async () => {
    s = await startRestServer();
  });
  after(async () => {
    await s?.stop();
  });

  describe('filter', () => {
    it('takes the JSON array form, with and / or', async () => {
      const filter = JSON.stringify([['status', '=', 'active'], 'or', ['budget', '<', 10000]]);
      expect(ids(ok(await list(s, 'project', { filter, sort: 'id' })))).to.deep.equal(['prj-apollo', 'prj-mercury']);
    });

    it('takes the JSON map form, with an [operator, value] entry', async () => {
      const filter = JSON.stringify({ status: 'planning', budget: ['>', 1000] });
      const body = ok(await list(s, 'project', { filter }));
      expect(ids(body)).to.deep.equal(['prj-gemini']);
      expect(body.meta.total).to.equal(1);
    });

    it('resolves special values and compares with another field', async () => {
      expect(
        ids(ok(await list(s, 'task', { filter: '[["assignee","=","$current_user"]]' }, { id: 'bob', roles: ['manager'] }))),
      ).to.have.members(['tsk-apollo-api', 'tsk-gemini-research', 'tsk-gemini-kickoff']);
      expect(ids(ok(await list(s, 'project', { filter: '[["actual_cost","<",{"$field":"budget"}]]', sort: 'id' })))).to.deep.equal([
        'prj-apollo',
        'prj-gemini',
        'prj-mercury',
      ]);
      expect(ids(ok(await list(s, 'project', { filter: '[["actual_cost",">",{"$field":"budget"}]]' })))).to.deep.equal([]);
    });

    it('an empty array matches everything', async () => {
      expect(ok(await list(s, 'project', { filter: '[]' })).meta.total).to.equal(3);
    });
  });

  describe('sort', () => {
    const byBudgetDesc = ['prj-apollo', 'prj-gemini', 'prj-mercury'];
    for (const sort of ['-budget', 'budget desc', 'budget DESC', '[["budget","desc"]]']) {
      it(`'${sort}' sorts descending`, async () => {
        expect(ids(ok(await list(s, 'project', { sort })))).to.deep.equal(byBudgetDesc);
      });
    }
    for (const sort of ['budget', '+budget', ' budget', 'budget asc']) {
      it(`'${sort}' sorts ascending`, async () => {
        expect(ids(ok(await list(s, 'project', { sort })))).to.deep.equal([...byBudgetDesc].reverse());
      });
    }

    it('takes a comma list mixing both syntaxes, and repeated sort parameters in order', async () => {
      for (const sort of [
        'status,-estimate_hours',
        'status asc, estimate_hours desc',
        'status, estimate_hours DESC',
        '[["status","asc"],["estimate_hours","desc"]]',
      ]) {
        expect(ids(ok(await list(s, 'task', { sort }))), sort).to.deep.equal(TASKS_BY_STATUS_THEN_ESTIMATE_DESC);
      }
      expect(
        ids(
          ok(
            await list(s, 'task', [
              ['sort', 'status'],
              ['sort', '-estimate_hours'],
            ]),
          ),
        ),
      ).to.deep.equal(TASKS_BY_STATUS_THEN_ESTIMATE_DESC);
    });

    it("a literal '+' in the query string decodes to a space and still sorts ascending", async () => {
      expect(ids(ok(await rest(s, 'GET', '/project?sort=+budget,name')))).to.deep.equal(['prj-mercury', 'prj-gemini', 'prj-apollo']);
      expect(ids(ok(await rest(s, 'GET', '/project?sort=budget+desc')))).to.deep.equal(byBudgetDesc);
    });
  });

  describe('top, skip and limit', () => {
    it('top and skip page; meta follows', async () => {
      const body = ok(await list(s, 'task', { sort: 'id', top: '2', skip: '2' }));
      expect(ids(body)).to.deep.equal(['tsk-apollo-launch', 'tsk-gemini-kickoff']);
      expect(body.meta).to.deep.equal({ total: 6, page: 2, size: 2, pages: 3, has_next: true });
    });

    it('limit is an alias of top, and may be given with an equal top', async () => {
      const viaLimit = ok(await list(s, 'task', { sort: 'id', limit: '4' }));
      expect(viaLimit.items).to.have.length(4);
      expect(viaLimit.meta).to.include({ size: 4, pages: 2, has_next: true });
      expect(ok(await list(s, 'task', { sort: 'id', top: '4', limit: '4' }))).to.deep.equal(viaLimit);
    });

    it('top defaults to 100; top=0 returns no items but the total', async () => {
      expect(ok(await list(s, 'task')).meta).to.deep.equal({ total: 6, page: 1, size: 100, pages: 1, has_next: false });
      const none = ok(await list(s, 'task', { top: '0' }));
      expect(none.items).to.deep.equal([]);
      expect(none.meta.total).to.equal(6);
    });

    it('a skip past the end returns no items', async () => {
      const body = ok(await list(s, 'task', { skip: '50' }));
      expect(body.items).to.deep.equal([]);
      expect(body.meta).to.include({ total: 6, has_next: false });
    });
  });

  describe('fields', () => {
    const expected = [
      { id: 'prj-apollo', name: 'Apollo Website Relaunch', budget: 120000 },
      { id: 'prj-gemini', name: 'Gemini Plant Monitoring', budget: 45000 },
      { id: 'prj-mercury', name: 'Mercury Ledger Migration', budget: 8000 },
    ];
    it('returns the id and the fields asked for: comma list, JSON array, repeated', async () => {
      expect(ok(await list(s, 'project', { fields: 'name,budget', sort: 'id' })).items).to.deep.equal(expected);
      expect(ok(await list(s, 'project', { fields: 'name, budget', sort: 'id' })).items).to.deep.equal(expected);
      expect(ok(await list(s, 'project', { fields: '["name","budget"]', sort: 'id' })).items).to.deep.equal(expected);
      expect(
        ok(
          await list(s, 'project', [
            ['fields', 'name'],
            ['fields', 'budget'],
            ['sort', 'id'],
          ]),
        ).items,
      ).to.deep.equal(expected);
    });
  });

  describe('expand', () => {
    it('a comma list inlines each relation in full', async () => {
      const body = ok(await list(s, 'milestone', { fields: 'name,project', expand: 'project', sort: 'id', top: '1' }));
      expect(body.items[0].project).to.include({ id: 'prj-apollo', name: 'Apollo Website Relaunch', owner: 'alice' });
    });

    it('a dotted path expands a level deeper', async () => {
      const body = ok(
        await list(s, 'task', { fields: 'title,project', expand: 'project.account', filter: '{"id":"tsk-mercury-handover"}' }),
      );
      expect(body.items[0].project.id).to.equal('prj-mercury');
      expect(body.items[0].project.account).to.include({ id: 'acc-initech', name: 'Initech' });
    });

    it('takes the JSON map of JSON-RPC with options per relation', async () => {
      const expand = JSON.stringify({ project: { fields: ['name', 'account'], expand: { account: { fields: ['name'] } } } });
      const body = ok(await list(s, 'task', { fields: 'title,project', expand, filter: '{"id":"tsk-apollo-api"}' }));
      expect(body.items).to.deep.equal([
        {
          id: 'tsk-apollo-api',
          title: 'Build the content API',
          project: { id: 'prj-apollo', name: 'Apollo Website Relaunch', account: { id: 'acc-acme', name: 'Acme Corporation' } },
        },
      ]);
    });
  });

  describe('groupBy and aggregate', () => {
    it('groups, aggregates and sorts by an alias', async () => {
      const aggregate = JSON.stringify([
        { func: 'count', alias: 'n' },
        { func: 'sum', field: 'estimate_hours', alias: 'hours' },
      ]);
      const body = ok(await list(s, 'task', { groupBy: 'status', aggregate, sort: '-hours' }));
      expect(body.items).to.deep.equal([
        { status: 'doing', n: 2, hours: 40 },
        { status: 'done', n: 2, hours: 16 },
        { status: 'todo', n: 2, hours: 8 },
      ]);
      expect(body.meta).to.include({ total: 3 });
    });

    it('aggregates without groupBy', async () => {
      const body = ok(await list(s, 'project', { aggregate: '[{"func":"max","field":"budget","alias":"top_budget"}]' }));
      expect(body.items).to.deep.equal([{ top_budget: 120000 }]);
    });
  });
});
