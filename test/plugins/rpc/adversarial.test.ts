/**
 * An attacker's and a demanding user's requests against the sample application over real HTTP:
 * permission leaks through odd roles and reference checks, crashes from odd argument shapes,
 * requests that tie up the event loop, and change notifications of writes that were rolled back.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import type { RecordChange } from '../../../kernel/engine/types';
import { call, expectError, expectFieldError, ok, snapshot } from './ops-helpers';

describe('JSON-RPC adversarial requests', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer({ security: { allowBodyUser: true } });
  });
  after(async () => {
    await s?.stop();
  });

  describe('roles that are not what they seem', () => {
    it("roles ['', 'system'] are two unknown roles, not the kernel's own unrestricted access", async () => {
      const mallory = { id: 'mallory', roles: ['', 'system'] };
      for (const object of ['project', 'task', 'expense']) {
        const res = await call(s, 'find', object, {}, mallory);
        expectError(res, 403, 'FORBIDDEN', object);
        expect(res.body.error.details.user_roles).to.deep.equal(['', 'system']);
      }
      expectError(await call(s, 'update', 'project', { id: 'prj-gemini', data: { name: 'Owned' } }, mallory), 403, 'FORBIDDEN');
      expect(ok(await call(s, 'findOne', 'project', 'prj-gemini', USERS.admin)).name).to.equal('Gemini Plant Monitoring');
    });

    it('a role containing the separator of two other roles neither gains nor spoils their rights', async () => {
      const glued = { id: 'glued', roles: ['member\u0000viewer'] };
      const both = { id: 'alice', roles: ['viewer', 'member'] };
      // The odd role first: what it is denied must not be what member + viewer get afterwards.
      expectError(await call(s, 'find', 'milestone', { expand: { project: {} } }, glued), 403, 'FORBIDDEN', 'project');
      expect(ok(await call(s, 'count', 'project', {}, both)).count).to.equal(3);
      // ... and the other way round: member + viewer first, the odd role gets nothing of it.
      const other = { id: 'glued', roles: ['manager\u0000viewer'] };
      expect(ok(await call(s, 'count', 'project', {}, { id: 'x', roles: ['manager', 'viewer'] })).count).to.equal(3);
      expectError(await call(s, 'count', 'project', {}, other), 403, 'FORBIDDEN');
    });

    it('each caller is named with their own roles in a FORBIDDEN error', async () => {
      expect(
        (await call(s, 'delete', 'project', { id: 'prj-apollo' }, { id: 'a', roles: ['member', 'viewer'] })).body.error.details.user_roles,
      ).to.deep.equal(['member', 'viewer']);
      expect(
        (await call(s, 'delete', 'project', { id: 'prj-apollo' }, { id: 'b', roles: ['viewer', 'member'] })).body.error.details.user_roles,
      ).to.deep.equal(['viewer', 'member']);
    });
  });

  describe('references to records the caller may not see', () => {
    it('read as missing: the same error as for an id that does not exist, and nothing is written', async () => {
      const before = await snapshot(s);
      const hidden = await call(s, 'create', 'task', { title: 'Probe', project: 'prj-gemini' }, USERS.alice);
      const missing = await call(s, 'create', 'task', { title: 'Probe', project: 'prj-nope' }, USERS.alice);
      expectFieldError(hidden, 'project');
      expectFieldError(missing, 'project');
      expect(hidden.body.error.message.replace('prj-gemini', 'ID')).to.equal(missing.body.error.message.replace('prj-nope', 'ID'));
      const moved = await call(s, 'update', 'task', { id: 'tsk-apollo-design', data: { project: 'prj-gemini' } }, USERS.alice);
      expectFieldError(moved, 'project');
      expect(await snapshot(s)).to.deep.equal(before);
    });

    it('still accept what the caller may see, and anything for a manager', async () => {
      const own = ok(await call(s, 'create', 'task', { title: 'Mine', project: 'prj-mercury' }, USERS.alice));
      expect(own.project).to.equal('prj-mercury');
      const forBob = ok(await call(s, 'create', 'task', { title: 'For bob', project: 'prj-gemini', assignee: 'alice' }, USERS.carol));
      expect(forBob.project).to.equal('prj-gemini');
      // alice works on it, and may change it without touching the reference.
      expect(ok(await call(s, 'update', 'task', { id: forBob.id, data: { status: 'doing' } }, USERS.alice)).status).to.equal('doing');
      for (const id of [own.id, forBob.id]) ok(await call(s, 'delete', 'task', { id }));
    });
  });

  describe('findOne arguments', () => {
    for (const [label, args, named] of [
      ['a raw filter tree', { filter: { and: 5 } }, "'filter'"],
      ['a raw filter string', { filter: 'x' }, "'filter'"],
      ['a raw not-null filter', { filter: { not: null } }, "'filter'"],
      ['aggregation', { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }] }, "'groupBy'"],
      ['paging', { filters: { owner: 'alice' }, skip: 1 }, "'skip'"],
    ] as const) {
      it(`${label} → 400 INVALID_REQUEST naming it`, async () => {
        expectError(await call(s, 'findOne', 'project', args, USERS.alice), 400, 'INVALID_REQUEST', named);
      });
    }

    it('filters, fields and expand are served', async () => {
      const one = ok(
        await call(
          s,
          'findOne',
          'task',
          { filters: { id: 'tsk-apollo-design' }, fields: ['title', 'project'], expand: { project: { fields: ['name'] } } },
          USERS.alice,
        ),
      );
      expect(one).to.deep.equal({
        id: 'tsk-apollo-design',
        title: 'Design the new landing page',
        project: { id: 'prj-apollo', name: 'Apollo Website Relaunch' },
        '@type': 'task',
      });
    });
  });

  describe('expand options', () => {
    for (const [label, options, named] of [
      ['fields a number', { fields: 5 }, "'fields'"],
      ['fields an object', { fields: { name: true } }, "'fields'"],
      ['fields a string', { fields: 'name' }, "'fields'"],
      ['an unknown option', { colour: 'red' }, "'colour'"],
      ['skip, which expand does not take', { skip: 1 }, "'skip'"],
      [
        'a raw filter tree, which only protocols with a syntax of their own build',
        { filter: { field: 'name', op: 'eq', value: 'x' } },
        "'filter'",
      ],
      ['a raw filter tree one level down', { expand: { account: { filter: { field: 'name', op: 'eq', value: 'x' } } } }, "'filter'"],
      ['top a string', { top: 'x' }, "'top'"],
      ['top negative', { top: -1 }, "'top'"],
    ] as const) {
      it(`${label} → 400 INVALID_REQUEST naming it`, async () => {
        expectError(await call(s, 'find', 'task', { expand: { project: options } }, USERS.alice), 400, 'INVALID_REQUEST', named);
      });
    }

    it('are checked before any query runs, whether or not a record has the relation set', async () => {
      const none = { filters: { title: 'No such task' } };
      expectError(
        await call(s, 'find', 'task', { ...none, expand: { project: { fields: ['colour'] } } }),
        400,
        'INVALID_REQUEST',
        "'colour'",
      );
      expectError(
        await call(s, 'find', 'task', { ...none, expand: { project: { filters: [['colour', '=', 1]] } } }),
        400,
        'INVALID_REQUEST',
        "'colour'",
      );
      expectError(await call(s, 'find', 'task', { ...none, expand: { project: { sort: 'colour' } } }), 400, 'INVALID_REQUEST', "'colour'");
      expectError(
        await call(s, 'find', 'task', { ...none, expand: { project: { fields: ['actual_cost'] } } }, USERS.alice),
        400,
        'INVALID_REQUEST',
        "'actual_cost'",
      );
      // An object the caller may not read: 403 whether or not there is anything to inline.
      expectError(
        await call(s, 'find', 'milestone', { filters: { name: 'No such milestone' }, expand: { project: {} } }, USERS.nobody),
        403,
        'FORBIDDEN',
        'project',
      );
    });

    it('valid options still shape the inlined records', async () => {
      const res = ok(
        await call(
          s,
          'find',
          'task',
          {
            filters: { id: 'tsk-apollo-design' },
            fields: ['project'],
            expand: { project: { fields: ['name'], top: 1, sort: 'name', filters: [['status', '=', 'active']] } },
          },
          USERS.alice,
        ),
      );
      expect(res.items).to.deep.equal([{ id: 'tsk-apollo-design', project: { id: 'prj-apollo', name: 'Apollo Website Relaunch' } }]);
    });
  });

  describe('prototype keys as names', () => {
    it("an aggregate alias '__proto__' is returned like any other alias", async () => {
      const res = ok(
        await call(s, 'find', 'project', { groupBy: ['status'], aggregate: [{ func: 'count', alias: '__proto__' }], sort: '__proto__' }),
      );
      expect(res.items.map((row: any) => Object.keys(row))).to.deep.equal([
        ['status', '__proto__'],
        ['status', '__proto__'],
        ['status', '__proto__'],
      ]);
      expect(res.items.map((row: any) => Object.getOwnPropertyDescriptor(row, '__proto__')?.value)).to.deep.equal([1, 1, 1]);
    });

    it('$current_user.<key> reads only keys of the user context, not members of every object', async () => {
      for (const special of ['$current_user.toString', '$current_user.constructor', '$current_user.hasOwnProperty']) {
        const res = ok(await call(s, 'find', 'project', { filters: [['owner', '=', special]] }, USERS.carol));
        expect(res.items, special).to.deep.equal([]);
        expect(ok(await call(s, 'count', 'project', { filters: [['owner', '!=', special]] }, USERS.carol)).count, special).to.equal(3);
      }
      const withKey = { ...USERS.carol, toString: 'alice' };
      expect(ok(await call(s, 'count', 'project', { filters: [['owner', '=', '$current_user.toString']] }, withKey)).count).to.equal(2);
    });
  });
});

describe('JSON-RPC requests that must not tie up the server', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer({ security: { allowBodyUser: true } });
    const accounts = Array.from({ length: 1000 }, (_, i) => ({ name: `${'a'.repeat(40)} ${i}`, industry: i % 2 ? 'other' : 'retail' }));
    expect(ok(await call(s, 'createMany', 'account', accounts)).count).to.equal(1000);
  });
  after(async () => {
    await s?.stop();
  });

  async function timed(send: () => Promise<{ status: number; body: any }>): Promise<{ ms: number; body: any }> {
    const start = Date.now();
    const res = await send();
    return { ms: Date.now() - start, body: ok(res) };
  }

  it("a 'like' pattern with many wildcards is answered quickly (no regular-expression backtracking)", async () => {
    ok(await call(s, 'create', 'account', { name: 'a'.repeat(40), industry: 'healthcare' }));
    const pattern = `${'%a'.repeat(8)}%b`;
    const { ms, body } = await timed(() =>
      call(s, 'count', 'account', {
        filters: [
          ['industry', '=', 'healthcare'],
          ['name', 'like', pattern],
        ],
      }),
    );
    expect(body.count).to.equal(0);
    expect(ms).to.be.below(1500);
    expect(ok(await call(s, 'count', 'account', { filters: [['name', 'like', `${'%A'.repeat(8)}%`]] })).count).to.equal(1001);
    expect(ok(await call(s, 'count', 'account', { filters: [['name', 'like', `${'%A'.repeat(8)}%1_9`]] })).count).to.equal(10); // 109, 119, ..., 199
  });

  it("a 'like' pattern beyond limits.maxPatternLength is refused naming the limit; a long one within it is served", async () => {
    const admin = USERS.admin;
    ok(await call(s, 'create', 'expense', { project: 'prj-apollo', amount: 1, note: 'b'.repeat(60_000) }, admin));
    for (const pattern of ['B'.repeat(60_000), '_'.repeat(60_000), `%${'b_'.repeat(20_000)}%`]) {
      const res = await call(s, 'count', 'expense', { filters: [['note', 'like', pattern]] }, admin);
      expect(expectFieldError(res, 'note')).to.include('at most 1000 characters');
      expect(res.body.error.details).to.include({ limit: 'maxPatternLength', max: 1000 });
    }
    for (const pattern of [`%${'B'.repeat(998)}%`, `%${'b_'.repeat(499)}%`, `${'_'.repeat(999)}%`]) {
      expect(ok(await call(s, 'count', 'expense', { filters: [['note', 'like', pattern]] }, admin)).count, pattern.slice(0, 4)).to.equal(1);
    }
  });

  it('a sort repeating one field a hundred thousand times is answered quickly, sorted as by the field once', async () => {
    const { ms, body } = await timed(() =>
      call(s, 'find', 'account', { fields: ['industry'], sort: `${'industry,'.repeat(100_000)}-name`, top: 3 }),
    );
    expect(ms).to.be.below(1500);
    const once = ok(await call(s, 'find', 'account', { fields: ['industry'], sort: 'industry, -name', top: 3 }));
    expect(body.items).to.deep.equal(once.items);
  });

  it('a groupBy repeating one field is answered quickly, grouped as by the field once', async () => {
    const filters = [['industry', 'in', ['other', 'retail', 'finance']]];
    const { ms, body } = await timed(() =>
      call(s, 'find', 'account', {
        filters,
        groupBy: Array(90_000).fill('industry'),
        aggregate: [{ func: 'count', alias: 'n' }],
        sort: 'industry',
      }),
    );
    expect(ms).to.be.below(1500);
    expect(body.items).to.deep.equal([
      { industry: 'finance', n: 1 },
      { industry: 'other', n: 500 },
      { industry: 'retail', n: 500 },
    ]);
  });
});

describe('change notifications of bulk items that failed', () => {
  let s: TestServer;
  const changes: RecordChange[] = [];

  before(async () => {
    s = await startServer({ security: { allowBodyUser: true } });
    // A plugin-style hook: every milestone also creates an account, then 'Boom' milestones fail.
    s.kernel.hooks.afterCreate.for('milestone').tapPromise('test', async (ctx) => {
      await ctx.api.repo('account').create({ name: `Account for ${String(ctx.data?.name)}` });
      if (ctx.data?.name === 'Boom') throw Object.assign(new Error('boom'), { code: 'VALIDATION_ERROR' });
    });
    s.kernel.hooks.recordChanged.tap('test', (change) => {
      changes.push(change);
    });
  });
  after(async () => {
    await s?.stop();
  });

  it('announce only what was committed: nothing of a rolled-back item', async () => {
    const res = ok(await call(s, 'createMany', 'milestone', [{ name: 'Boom' }, { name: 'Fine' }]));
    expect(res.count).to.equal(1);
    expect(res.errors.map((e: any) => [e.index, e.error.code])).to.deep.equal([[0, 'VALIDATION_ERROR']]);
    expect(ok(await call(s, 'count', 'account', { filters: [['name', 'startswith', 'Account for']] })).count).to.equal(1);
    expect(changes.map((c) => [c.object, c.type, c.record?.name])).to.deep.equal([
      ['account', 'created', 'Account for Fine'],
      ['milestone', 'created', 'Fine'],
    ]);
  });
});

describe('change notifications across datasources', () => {
  // An object on a second datasource: a write to it from a hook commits in its own transaction.
  let dir: string;
  let s: TestServer;
  const changes: RecordChange[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'objectql-adv-'));
    writeFileSync(join(dir, 'order.object.yml'), 'fields:\n  name: {type: text}\n');
    writeFileSync(join(dir, 'audit.object.yml'), 'datasource: audit\nfields:\n  text: {type: text}\n');
    s = await startServer({
      metadata: [dir],
      datasources: { default: { driver: 'memory' }, audit: { driver: 'memory' } },
      security: { allowBodyUser: true },
    });
    s.kernel.hooks.afterCreate.for('order').tapPromise('test', async (ctx) => {
      await ctx.api.repo('audit').create({ text: `order ${String(ctx.data?.name)}` });
      if (ctx.data?.name === 'Boom') throw Object.assign(new Error('boom'), { code: 'VALIDATION_ERROR' });
    });
    s.kernel.hooks.recordChanged.tap('test', (change) => {
      changes.push(change);
    });
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('announce what another datasource committed, even when the outer write rolls back', async () => {
    expectError(await call(s, 'create', 'order', { name: 'Boom' }), 400, 'VALIDATION_ERROR');
    expect(ok(await call(s, 'count', 'order', {})).count).to.equal(0);
    expect(ok(await call(s, 'find', 'audit', { fields: ['text'] })).items.map((a: any) => a.text)).to.deep.equal(['order Boom']);
    expect(changes.map((c) => [c.object, c.type, c.record?.text ?? c.record?.name])).to.deep.equal([['audit', 'created', 'order Boom']]);
  });
});
