/**
 * Writes the sample application refuses, over real HTTP: a bad value of every field type, the
 * validation rules of project, unique fields, and hooks that throw. Each refusal leaves the store
 * as it was.
 */
import { expect } from 'chai';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { call, countOf, expectError, expectFieldError, ok } from './ops-helpers';

describe('JSON-RPC validation end to end', () => {
  let s: TestServer;
  let seq = 0;

  before(async () => {
    s = await startServer({ security: { allowBodyUser: true } });
  });
  after(async () => {
    await s?.stop();
  });

  async function newProject(extra: Record<string, unknown> = {}): Promise<any> {
    seq += 1;
    return ok(await call(s, 'create', 'project', { name: `Validation project ${seq}`, ...extra }));
  }

  describe('field values on create', () => {
    const task = { title: 'Bad task', project: 'prj-apollo' };
    const cases: Array<[string, string, Record<string, unknown>, string, RegExp]> = [
      ['email', 'contact', { last_name: 'X', email: 'not-an-email' }, 'email', /email/],
      ['url', 'account', { name: 'Bad URL', website: 'ftp://files.example.com' }, 'website', /URL/],
      ['phone', 'account', { name: 'Bad phone', phone: 'call me' }, 'phone', /phone/],
      ['number', 'task', { ...task, estimate_hours: 'ten' }, 'estimate_hours', /number/],
      ['number below min', 'task', { ...task, estimate_hours: -1 }, 'estimate_hours', /at least 0/],
      ['currency', 'project', { name: 'Bad budget', budget: '100' }, 'budget', /number/],
      ['text', 'project', { name: 42 }, 'name', /string/],
      ['boolean', 'account', { name: 'Bad bool', active: 'yes' }, 'active', /true or false/],
      ['select option', 'project', { name: 'Bad status', status: 'archived' }, 'status', /planning, active, on_hold, done/],
      ['multiple select option', 'project', { name: 'Bad tags', tags: ['frontend', 'mobile'] }, 'tags', /item 2/],
      ['multiple select not a list', 'project', { name: 'Bad tags 2', tags: 'frontend' }, 'tags', /array/],
      ['date', 'contact', { last_name: 'X', birthday: '2025-02-30' }, 'birthday', /YYYY-MM-DD/],
      ['date format', 'contact', { last_name: 'X', birthday: '12/04/1986' }, 'birthday', /YYYY-MM-DD/],
      ['datetime', 'task', { ...task, due_at: 'next tuesday' }, 'due_at', /ISO 8601/],
      ['time', 'task', { ...task, start_time: '25:00' }, 'start_time', /HH:MM/],
      ['lookup to a missing record', 'contact', { last_name: 'X', account: 'acc-missing' }, 'account', /acc-missing/],
      ['master_detail to a missing record', 'task', { title: 'Orphan', project: 'prj-missing' }, 'project', /prj-missing/],
      ['required missing', 'task', { project: 'prj-apollo' }, 'title', /required/],
      ['required empty', 'contact', { last_name: '' }, 'last_name', /required/],
      ['required master_detail missing', 'expense', { amount: 5 }, 'project', /required/],
      ['auto_number written by an admin', 'project', { name: 'Numbered' }, 'code', /read-only/],
      ['unknown field', 'account', { name: 'Extra', colour: 'red' }, 'colour', /unknown field/],
    ];
    for (const [label, object, data, field, message] of cases) {
      it(`${label}: 400 VALIDATION_ERROR naming ${object}.${field}, nothing stored`, async () => {
        const user = label.startsWith('auto_number') ? USERS.admin : USERS.carol;
        const args = label.startsWith('auto_number') ? { ...data, code: 99 } : data;
        const before = await countOf(s, object);
        expect(expectFieldError(await call(s, 'create', object, args, user), field)).to.match(message);
        expect(await countOf(s, object)).to.equal(before);
      });
    }

    it('json: a value JSON cannot carry (1e999 parses to Infinity) is refused naming the field', async () => {
      const before = await countOf(s, 'project');
      const raw = `{"op":"create","object":"project","args":{"name":"Infinite","settings":{"limit":1e999}},"user":{"id":"carol","roles":["manager"]}}`;
      expect(expectFieldError(await s.rpc(raw), 'settings')).to.match(/JSON/);
      expect(await countOf(s, 'project')).to.equal(before);
      // any real JSON value is fine, a string included
      expect(ok(await call(s, 'create', 'project', { name: 'Json string', settings: 'plain' })).settings).to.equal('plain');
    });

    it('reports every failing field at once', async () => {
      const res = await call(s, 'create', 'task', { project: 'prj-apollo', status: 'blocked', start_time: '9am' });
      expectFieldError(res, 'title');
      expect(Object.keys(res.body.error.details.fields).sort()).to.deep.equal(['start_time', 'status', 'title']);
    });
  });

  describe('field values on update', () => {
    it('refuses a bad value and leaves the record unchanged', async () => {
      const before = ok(await call(s, 'findOne', 'task', 'tsk-apollo-api'));
      expectFieldError(await call(s, 'update', 'task', { id: 'tsk-apollo-api', data: { due_at: '2025-13-01T00:00:00Z' } }), 'due_at');
      expectFieldError(await call(s, 'update', 'task', { id: 'tsk-apollo-api', data: { title: null } }), 'title');
      expectFieldError(await call(s, 'update', 'contact', { id: 'con-jane', data: { account: 'acc-missing' } }), 'account');
      expect(ok(await call(s, 'findOne', 'task', 'tsk-apollo-api'))).to.deep.equal(before);
    });

    it('a member may not see, hence not write, actual_cost', async () => {
      expectFieldError(await call(s, 'update', 'project', { id: 'prj-apollo', data: { actual_cost: 1 } }, USERS.alice), 'actual_cost');
      expect(ok(await call(s, 'findOne', 'project', 'prj-apollo')).actual_cost).to.equal(4699.5);
    });
  });

  describe('validation rules of project', () => {
    it('cross_field: end_date may not be before start_date (create and update)', async () => {
      const before = await countOf(s, 'project');
      const msg = expectFieldError(
        await call(s, 'create', 'project', { name: 'Backwards', start_date: '2025-05-01', end_date: '2025-04-30' }),
        'end_date',
      );
      expect(msg).to.equal('The end date cannot be before the start date.');
      expect(await countOf(s, 'project')).to.equal(before);
      expectFieldError(await call(s, 'update', 'project', { id: 'prj-apollo', data: { end_date: '2024-12-31' } }), 'end_date');
      expect(ok(await call(s, 'findOne', 'project', 'prj-apollo')).end_date).to.equal('2025-09-30');
      // equal dates hold
      expect(
        ok(await call(s, 'create', 'project', { name: 'One day', start_date: '2025-05-01', end_date: '2025-05-01' })).end_date,
      ).to.equal('2025-05-01');
    });

    it('state_machine: planning -> done is refused, planning -> active -> done allowed, done is final', async () => {
      const p = await newProject({ start_date: '2025-01-01' });
      const msg = expectFieldError(
        await call(s, 'update', 'project', { id: p.id, data: { status: 'done', end_date: '2025-02-01' } }),
        'status',
      );
      expect(msg).to.equal('This status change is not allowed.');
      expect(ok(await call(s, 'findOne', 'project', p.id))).to.include({ status: 'planning', end_date: null });
      expect(ok(await call(s, 'update', 'project', { id: p.id, data: { status: 'active' } })).status).to.equal('active');
      expect(ok(await call(s, 'update', 'project', { id: p.id, data: { status: 'done', end_date: '2025-02-01' } })).status).to.equal(
        'done',
      );
      expectFieldError(await call(s, 'update', 'project', { id: p.id, data: { status: 'active' } }), 'status');
      // the rule is checked on update only: a project may be created in any state
      expect(ok(await call(s, 'create', 'project', { name: 'Born done', status: 'done', end_date: '2025-01-01' })).status).to.equal('done');
    });

    it('range: a budget above 10,000,000 is refused; the bound itself is allowed', async () => {
      expect(expectFieldError(await call(s, 'create', 'project', { name: 'Too big', budget: 10000000.01 }), 'budget')).to.match(/approval/);
      expectFieldError(await call(s, 'update', 'project', { id: 'prj-gemini', data: { budget: 2e7 } }), 'budget');
      expect(ok(await call(s, 'findOne', 'project', 'prj-gemini')).budget).to.equal(45000);
      expect(ok(await call(s, 'create', 'project', { name: 'Just fits', budget: 10000000 })).budget).to.equal(10000000);
    });

    it('conditional: a done project needs an end_date', async () => {
      const msg = expectFieldError(await call(s, 'create', 'project', { name: 'Done no end', status: 'done' }), 'end_date');
      expect(msg).to.equal('A finished project needs an end date.');
      expect(await countOf(s, 'project', { name: 'Done no end' })).to.equal(0);
      expectFieldError(await call(s, 'update', 'project', { id: 'prj-mercury', data: { end_date: null } }), 'end_date');
      expect(ok(await call(s, 'findOne', 'project', 'prj-mercury')).end_date).to.equal('2024-12-20');
    });
  });

  describe('unique fields', () => {
    it('a second contact with the same email is 409 CONFLICT naming the field', async () => {
      const before = await countOf(s, 'contact');
      const res = await call(s, 'create', 'contact', { last_name: 'Twin', email: 'jane.doe@acme.example.com' });
      expectError(res, 409, 'CONFLICT', 'email', 'jane.doe@acme.example.com');
      expect(res.body.error.details).to.include({ field: 'email', object: 'contact' });
      expect(await countOf(s, 'contact')).to.equal(before);
      expectError(
        await call(s, 'update', 'contact', { id: 'con-raj', data: { email: 'jane.doe@acme.example.com' } }),
        409,
        'CONFLICT',
        'email',
      );
      expect(ok(await call(s, 'findOne', 'contact', 'con-raj')).email).to.equal('raj.patel@acme.example.com');
      // a record keeps its own value
      ok(await call(s, 'update', 'contact', { id: 'con-jane', data: { email: 'jane.doe@acme.example.com', first_name: 'Janet' } }));
    });

    it('project names are unique after the hook trims them', async () => {
      expectError(await call(s, 'create', 'project', { name: '  Apollo Website Relaunch ' }), 409, 'CONFLICT', 'name');
    });
  });
});

describe('JSON-RPC hooks that throw', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer({ security: { allowBodyUser: true } });
    // Rejected promises, as an async hook that throws returns.
    s.kernel.hooks.beforeCreate.for('milestone').tapPromise('test', () => Promise.reject(new Error('boom: secret internals')));
    s.kernel.hooks.beforeUpdate
      .for('milestone')
      .tapPromise('test', () => Promise.reject(Object.assign(new Error('nope, milestones are frozen'), { code: 'FORBIDDEN' })));
    s.kernel.hooks.afterCreate
      .for('account')
      .tapPromise('test-after', (ctx) =>
        (ctx.data as { name?: string } | undefined)?.name === 'Rollback Inc'
          ? Promise.reject(new Error('after hook failed'))
          : Promise.resolve(),
      );
  });
  after(async () => {
    await s?.stop();
  });

  it('a plain error becomes 500 INTERNAL_ERROR naming the hook, with no stack or cause in the body', async () => {
    const before = await countOf(s, 'milestone');
    const res = await call(s, 'create', 'milestone', { name: 'Never', project: 'prj-apollo' });
    expectError(res, 500, 'INTERNAL_ERROR', 'beforeCreate', 'milestone');
    const text = JSON.stringify(res.body);
    expect(text).not.to.include('boom');
    expect(text).not.to.include('stack');
    expect(text).not.to.match(/\.ts:\d+/);
    expect(await countOf(s, 'milestone')).to.equal(before);
  });

  it('an error with a code keeps its code, status and message', async () => {
    const res = await call(s, 'update', 'milestone', { id: 'ms-apollo-beta', data: { reached: true } });
    expectError(res, 403, 'FORBIDDEN', 'nope, milestones are frozen');
    expect(ok(await call(s, 'findOne', 'milestone', 'ms-apollo-beta')).reached).to.equal(false);
  });

  it('a failing after hook rolls the write back', async () => {
    const before = await countOf(s, 'account');
    expectError(await call(s, 'create', 'account', { name: 'Rollback Inc' }), 500, 'INTERNAL_ERROR', 'afterCreate', 'account');
    expect(await countOf(s, 'account')).to.equal(before);
    expect(await countOf(s, 'account', { name: 'Rollback Inc' })).to.equal(0);
  });

  it('in a bulk create each failing item is listed with the hook error; the server keeps serving', async () => {
    const res = ok(await call(s, 'createMany', 'milestone', [{ name: 'A' }, { name: 'B' }]));
    expect(res.count).to.equal(0);
    expect(res.errors.map((e: any) => [e.index, e.error.code])).to.deep.equal([
      [0, 'INTERNAL_ERROR'],
      [1, 'INTERNAL_ERROR'],
    ]);
    expect(JSON.stringify(res)).not.to.include('boom');
    expect(ok(await call(s, 'create', 'account', { name: 'Still serving' })).name).to.equal('Still serving');
  });
});
