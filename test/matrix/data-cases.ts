/**
 * The data side of the matrix: each cell of table.ts (user × object) becomes reads (list, get by
 * id, count, aggregate, filters reaching out of scope), hidden-field probes (filter, sort, select,
 * group, aggregate: each answered as for a field that does not exist), expands, and writes
 * (create, update, delete, bulk, hidden and read-only fields, records in and out of scope). Every
 * write starts from the seeded store and puts it back; a denied one must change nothing.
 */
import { expect } from 'chai';
import { toObjectQLError, type Repository } from '../../kernel';
import { expectDenied, expectNoHidden, expectNotFound, expectOk, expectSameAs, projection, sortedIds } from './checks';
import type { Condition, DataOps, ListQuery, Outcome, Rec } from './protocol';
import type { MatrixServer } from './server';
import { cell, EXPLICIT, NO_SUCH_FIELD, NO_SUCH_ID, OBJECTS, PROBES, RECORDS, WRITES, type ExplicitCase, type ObjectName } from './table';
import { MATRIX_USERS, USER_NAMES, type MatrixUser, type UserName } from './users';

interface Ctx {
  env: MatrixServer;
  ops: DataOps;
  u: MatrixUser;
  user: UserName;
  object: ObjectName;
}

export function dataCases(env: MatrixServer, ops: DataOps): void {
  // What the protocol cannot express is reported once, as pending, with the reason.
  if (!ops.count) it.skip('count: the protocol has no count operation (count cases left out)');
  if (!ops.aggregate) it.skip('aggregate: the protocol has no aggregate operation (aggregate cases left out)');
  if (ops.lacks?.expand) it.skip(`expand: ${ops.lacks.expand}`);
  if (ops.lacks?.defaultFields) it.skip(`no default field set: ${ops.lacks.defaultFields} (reads name the readable fields)`);
  if (ops.lacks?.unknownFields) it.skip(`unknown fields: ${ops.lacks.unknownFields} (compared with the engine's answer where needed)`);
  const reading = ['list', 'get', ...(ops.count ? ['count'] : []), ...(ops.aggregate ? ['aggregate'] : [])].join(', ');
  for (const object of OBJECTS) {
    describe(object, () => {
      for (const user of USER_NAMES) {
        const ctx: Ctx = { env, ops, u: MATRIX_USERS[user], user, object };
        const c = cell(object, user);
        it(`${user}: ${reading} (${c.ops.includes('R') ? `${c.ids.length} of ${RECORDS[object].length}` : 'denied'})`, () => reads(ctx));
        if (c.hidden.length) it(`${user}: hidden ${c.hidden.join(', ')} read as unknown`, () => hiddenReads(ctx));
        if (c.ops.includes('R') && !ops.lacks?.expand) it(`${user}: expand`, () => expands(ctx));
        it(`${user}: writes (${c.ops.replace('R', '') || 'none'})`, () => writes(ctx));
      }
    });
  }
  if (ops.lacks?.limit) it.skip(`one top/limit rule: ${ops.lacks.limit}`);
  else describe('list options: one rule, one message, in every protocol', () => listOptionCases(env, ops));
  describe('cases the grid cannot express', () => {
    for (const x of EXPLICIT) {
      if (x.run.op === 'action' && !ops.action) continue;
      it(`${x.user} · ${x.object}: ${x.title}`, () => explicit(env, ops, x));
    }
  });
}

/**
 * The same list options get the same answer through every protocol (kernel/protocol's listOptions
 * and the engine's bounds): `limit` stands for `top`, two different page sizes are refused rather
 * than one silently winning, a page above the maximum is refused — with one message each.
 */
function listOptionCases(env: MatrixServer, ops: DataOps): void {
  const root = MATRIX_USERS.root;
  const fields = ops.lacks?.defaultFields ? { fields: ['id', 'name'] } : {};
  const refused = (o: Outcome, message: string, parameter: string, what: string) => {
    expect(o.status, `${what}: ${JSON.stringify(o.raw)}`).to.equal(400);
    expect(o.error?.code, what).to.equal('INVALID_REQUEST');
    expect(o.error?.message, what).to.equal(message);
    expect(o.error?.details, what).to.deep.include({ parameter });
  };
  it("top and limit that disagree: refused, naming 'limit'", async () => {
    const o = await ops.list(root, 'project', { ...fields, top: 1, limit: 2 });
    refused(o, "'top' (1) and 'limit' (2) disagree: 'limit' is a deprecated alias of 'top'; give one of them", 'limit', 'top 1, limit 2');
  });
  it('top and limit that agree, or limit alone: that page size', async () => {
    const both = await ops.list(root, 'project', { ...fields, sort: [['id', 'asc']], top: 2, limit: 2 });
    expectOk(both, 'top 2, limit 2');
    expect(sortedIds(both.items)).to.deep.equal(RECORDS.project.slice(0, 2));
    const alone = await ops.list(root, 'project', { ...fields, sort: [['id', 'asc']], limit: 1 });
    expectOk(alone, 'limit 1');
    expect(sortedIds(alone.items)).to.deep.equal(RECORDS.project.slice(0, 1));
  });
  it('a page above the maximum: refused, naming top', async () => {
    const max = env.kernel.engine.limits.maxTop;
    refused(
      await ops.list(root, 'project', { ...fields, top: max + 1 }),
      `'top' may be at most ${max}, got ${max + 1}`,
      'top',
      'top above max',
    );
  });
}

/**
 * The engine's own answer to `run` as `u` (an Outcome without a protocol), for a request a typed
 * protocol cannot send (Lacks.unknownFields). Anything it writes is undone by the caller's reset.
 */
async function engineAnswer(
  env: MatrixServer,
  u: MatrixUser,
  object: ObjectName,
  run: (repo: Repository) => Promise<unknown>,
): Promise<Outcome> {
  try {
    const result = await run(env.kernel.engine.repo(object, { user: u.user }));
    return { status: 200, raw: result };
  } catch (err) {
    const e = toObjectQLError(err);
    return { status: e.status, error: e.toBody().error, raw: e.toBody() };
  }
}

const readableFields = (env: MatrixServer, object: ObjectName, user: UserName) =>
  env.fields(object).filter((f) => !cell(object, user).hidden.includes(f));

async function reads({ env, ops, u, user, object }: Ctx): Promise<void> {
  const c = cell(object, user);
  const truth = await env.truth(object);
  const readable = readableFields(env, object, user);
  const canRead = c.ops.includes('R');
  const outside = RECORDS[object].filter((id) => !c.ids.includes(id));
  // A protocol without a default field set is asked for exactly the fields the table says are readable.
  const sel: Pick<ListQuery, 'fields'> = ops.lacks?.defaultFields ? { fields: readable } : {};

  const list = await ops.list(u, object, { sort: [['id', 'asc']], top: 1000, ...sel });
  if (!canRead) expectDenied(list, u, 'allow_read', 'list');
  else {
    expectOk(list, 'list');
    expect(sortedIds(list.items), 'list: the records seen').to.deep.equal([...c.ids].sort());
    if (list.total !== undefined) expect(list.total, 'list: the total').to.equal(c.ids.length);
    for (const item of list.items!) expect(item, `list: ${item.id}`).to.deep.equal(projection(truth.get(item.id)!, readable));
  }

  const missing = await ops.get(u, object, NO_SUCH_ID, sel);
  for (const id of RECORDS[object]) {
    const got = await ops.get(u, object, id, sel);
    if (!canRead) expectDenied(got, u, 'allow_read', `get ${id}`);
    else if (c.ids.includes(id)) {
      expectOk(got, `get ${id}`);
      expect(got.record, `get ${id}`).to.deep.equal(projection(truth.get(id)!, readable));
    } else expectNotFound(got, missing, id, NO_SUCH_ID, `get ${id} (out of scope)`);
  }

  if (ops.count) {
    const count = await ops.count(u, object);
    if (!canRead) expectDenied(count, u, 'allow_read', 'count');
    else expect(count.count, `count: ${JSON.stringify(count.raw)}`).to.equal(c.ids.length);
  }

  if (ops.aggregate) {
    const agg = await ops.aggregate(u, object, { aggregate: [{ func: 'count', alias: 'n' }] });
    if (!canRead) expectDenied(agg, u, 'allow_read', 'aggregate');
    else expect(agg.items, `aggregate: ${JSON.stringify(agg.raw)}`).to.deep.equal([{ n: c.ids.length }]);
  }

  // Filters reaching for records out of scope find nothing, by id or by any other field.
  if (!canRead) return;
  const page = await ops.list(u, object, { sort: [['id', 'desc']], top: 1, ...sel });
  expect(sortedIds(page.items), 'a page of one').to.deep.equal([[...c.ids].sort().reverse()[0]]);
  if (page.total !== undefined) expect(page.total, 'a page of one: the total').to.equal(c.ids.length);
  const probes: Condition[][] = [
    ...(outside.length ? [[['id', 'in', outside] as Condition]] : []),
    ...(PROBES[object]?.[user] ? [PROBES[object][user]] : []),
  ];
  for (const filters of probes) {
    const found = await ops.list(u, object, { filters, ...sel });
    expectOk(found, `list ${JSON.stringify(filters)}`);
    expect(found.items, `list ${JSON.stringify(filters)}`).to.deep.equal([]);
    if (ops.count) expect((await ops.count(u, object, filters)).count, `count ${JSON.stringify(filters)}`).to.equal(0);
    if (ops.aggregate) {
      const groups = await ops.aggregate(u, object, { groupBy: ['id'], aggregate: [{ func: 'count', alias: 'n' }], filters });
      expect(groups.items, `groups ${JSON.stringify(filters)}`).to.deep.equal([]);
    }
  }
}

/** Every read naming a hidden field is answered exactly as the same read naming a field that does not exist. */
async function hiddenReads({ env, ops, u, user, object }: Ctx): Promise<void> {
  const c = cell(object, user);
  const visible = c.ids[0];
  const sel: Pick<ListQuery, 'fields'> = ops.lacks?.defaultFields ? { fields: readableFields(env, object, user) } : {};
  const typed = !!ops.lacks?.unknownFields;
  for (const h of c.hidden) {
    const value = WRITES[object].values[h] ?? 'x';
    const same = async (what: string, run: (field: string) => Promise<Outcome>) =>
      expectSameAs(await run(h), await run(NO_SUCH_FIELD), h, NO_SUCH_FIELD, `${what} by hidden '${h}'`);
    await same('filter', (f) => ops.list(u, object, { filters: [[f, '=', value]], ...sel }));
    await same('filter (not equal)', (f) => ops.list(u, object, { filters: [[f, '!=', value]], ...sel }));
    await same('sort', (f) => ops.list(u, object, { sort: [[f, 'desc']], ...sel }));
    await same('select', (f) => ops.list(u, object, { fields: ['id', f] }));
    if (ops.count) await same('count', (f) => ops.count!(u, object, [[f, '!=', value]]));
    if (visible && !typed) await same('get with fields', (f) => ops.get(u, object, visible, { fields: [f] }));
    if (visible && typed) {
      const what = `get with fields by hidden '${h}' (vs the engine's answer for '${NO_SUCH_FIELD}')`;
      const probe = await engineAnswer(env, u, object, (repo) =>
        repo.findOne({ fields: ['id', NO_SUCH_FIELD], filter: { field: 'id', op: 'eq', value: visible } }),
      );
      expectSameAs(await ops.get(u, object, visible, { fields: ['id', h] }), probe, h, NO_SUCH_FIELD, what);
    }
    if (ops.aggregate) {
      await same('group', (f) => ops.aggregate!(u, object, { groupBy: [f], aggregate: [{ func: 'count', alias: 'n' }] }));
      await same('aggregate', (f) => ops.aggregate!(u, object, { aggregate: [{ func: 'max', field: f, alias: 'm' }] }));
    }
  }
}

/** Each relation expands to the related record as the user may see it, or null out of scope; a target the user may not read is denied. */
async function expands({ env, ops, u, user, object }: Ctx): Promise<void> {
  const truth = await env.truth(object);
  for (const { field, target } of env.relations(object)) {
    const t = cell(target as ObjectName, user);
    const res = await ops.list(u, object, { sort: [['id', 'asc']], top: 1000, expand: { [field]: {} } });
    if (!t.ops.includes('R')) {
      expectDenied(res, u, 'allow_read', `expand ${field} into ${target}`);
      expect(res.error?.details?.object, 'the object denied').to.equal(target);
      continue;
    }
    expectOk(res, `expand ${field}`);
    const targets = await env.truth(target);
    const readable = readableFields(env, target as ObjectName, user);
    for (const item of res.items!) {
      const ref = truth.get(item.id)![field] as string | null;
      const expected = ref && t.ids.includes(ref) ? projection(targets.get(ref)!, readable) : null;
      expect(item[field], `expand ${item.id}.${field} → ${ref}`).to.deep.equal(expected);
    }
    for (const h of t.hidden) {
      const value = WRITES[target as ObjectName].values[h] ?? 'x';
      const probes: Array<[string, (f: string) => ListQuery['expand']]> = [
        ['selecting', (f) => ({ [field]: { fields: [f] } })],
        ['filtering by', (f) => ({ [field]: { filters: [[f, '=', value]] } })],
        ['sorting by', (f) => ({ [field]: { sort: [[f, 'asc']] } })],
      ];
      for (const [what, expand] of probes) {
        const run = (f: string) => ops.list(u, object, { expand: expand(f) });
        expectSameAs(await run(h), await run(NO_SUCH_FIELD), h, NO_SUCH_FIELD, `expand ${field} ${what} hidden '${h}'`);
      }
    }
  }
}

async function writes(ctx: Ctx): Promise<void> {
  const { env, ops, u, user, object } = ctx;
  const c = cell(object, user);
  const w = WRITES[object];
  const can = (op: string) => c.ops.includes(op);
  const newRecord = () => w.create(u.user ?? {}, (o) => cell(o, user).ids);
  const target = c.writeIds[0] ?? RECORDS[object][0];
  const visibleOnly = c.ids.find((id) => !c.writeIds.includes(id));
  const outside = RECORDS[object].find((id) => !c.ids.includes(id));

  /** Runs one write from the seeded store, checks it, and puts the store back. */
  const step = async (what: string, run: () => Promise<Outcome>, check: (o: Outcome) => Promise<void> | void) => {
    const before = await env.capture();
    const o = await run();
    try {
      await check(o);
      if (o.status >= 400) await env.expectUnchanged(before, what);
    } finally {
      await env.reset();
    }
  };
  const denied = (permission: string, what: string) => (o: Outcome) => expectDenied(o, u, permission, what);
  const notFound = (what: string, probe: () => Promise<Outcome>, id: string) => async (o: Outcome) =>
    expectNotFound(o, await probe(), id, NO_SUCH_ID, what);

  await step(
    'create',
    () => ops.create(u, object, newRecord()),
    async (o) => {
      if (!can('C')) return expectDenied(o, u, 'allow_create', 'create');
      expectOk(o, 'create');
      expectNoHidden(o.record, c.hidden, 'create');
      expect((await env.truth(object)).has(o.record!.id), 'created record stored').to.equal(true);
    },
  );

  if (ops.createMany) {
    await step(
      'createMany',
      () => ops.createMany!(u, object, [newRecord()]),
      (o) => {
        if (!can('C')) return expectDenied(o, u, 'allow_create', 'createMany');
        expectOk(o, 'createMany');
        expect(o.items, `createMany: ${JSON.stringify(o.raw)}`).to.have.length(1);
        expectNoHidden(o.items![0], c.hidden, 'createMany');
      },
    );
  }

  await step(
    `update ${target}`,
    () => ops.update(u, object, target, w.update),
    async (o) => {
      if (!can('U')) return expectDenied(o, u, 'allow_edit', 'update');
      expectOk(o, `update ${target}`);
      expectNoHidden(o.record, c.hidden, 'update');
      expect((await env.truth(object)).get(target), 'stored').to.deep.include(w.update);
    },
  );
  if (visibleOnly) {
    await step(
      `update ${visibleOnly} (visible, not writable)`,
      () => ops.update(u, object, visibleOnly, w.update),
      denied(can('U') ? 'record_filters' : 'allow_edit', 'update visible'),
    );
  }
  if (outside) {
    const run = (id: string) => () => ops.update(u, object, id, w.update);
    await step(
      `update ${outside} (out of scope)`,
      run(outside),
      can('U') ? notFound('update out of scope', run(NO_SUCH_ID), outside) : denied('allow_edit', 'update out of scope'),
    );
  }

  await step(
    `delete ${target}`,
    () => ops.delete(u, object, target),
    async (o) => {
      if (!can('D')) return expectDenied(o, u, 'allow_delete', 'delete');
      expectOk(o, `delete ${target}`);
      expect((await env.truth(object)).has(target), 'deleted').to.equal(false);
    },
  );
  if (visibleOnly) {
    await step(
      `delete ${visibleOnly} (visible, not writable)`,
      () => ops.delete(u, object, visibleOnly),
      denied(can('D') ? 'record_filters' : 'allow_delete', 'delete visible'),
    );
  }
  if (outside) {
    const run = (id: string) => () => ops.delete(u, object, id);
    await step(
      `delete ${outside} (out of scope)`,
      run(outside),
      can('D') ? notFound('delete out of scope', run(NO_SUCH_ID), outside) : denied('allow_delete', 'delete out of scope'),
    );
  }

  // A hidden field is written as a field that does not exist (whether the record is in scope or not);
  // a visible read-only field is FORBIDDEN naming it.
  for (const h of c.hidden) {
    const value = w.values[h];
    const same = (what: string, run: (f: string) => Promise<Outcome>) =>
      step(
        what,
        () => run(h),
        async (o) => expectSameAs(o, await run(NO_SUCH_FIELD), h, NO_SUCH_FIELD, what),
      );
    /** A typed protocol cannot send a nonexistent field: the probe is the engine's answer to the same write. */
    const sameAsEngine = (what: string, run: (f: string) => Promise<Outcome>, engine: (repo: Repository) => Promise<unknown>) =>
      step(
        what,
        () => run(h),
        async (o) =>
          expectSameAs(
            o,
            await engineAnswer(env, u, object, engine),
            h,
            NO_SUCH_FIELD,
            `${what} (vs the engine's answer for '${NO_SUCH_FIELD}')`,
          ),
      );
    const typed = !!ops.lacks?.unknownFields;
    if (can('C') && !typed) await same(`create with hidden '${h}'`, (f) => ops.create(u, object, { ...newRecord(), [f]: value }));
    if (can('C') && typed)
      await sameAsEngine(
        `create with hidden '${h}'`,
        (f) => ops.create(u, object, { ...newRecord(), [f]: value }),
        (repo) => repo.create({ ...newRecord(), [NO_SUCH_FIELD]: value }),
      );
    if (can('U') && !typed) await same(`update with hidden '${h}'`, (f) => ops.update(u, object, target, { [f]: value }));
    if (can('U') && typed)
      await sameAsEngine(
        `update with hidden '${h}'`,
        (f) => ops.update(u, object, target, { [f]: value }),
        (repo) => repo.update(target, { [NO_SUCH_FIELD]: value }),
      );
    if (can('U') && outside && !typed)
      await same(`update out of scope with hidden '${h}'`, (f) => ops.update(u, object, outside, { [f]: value }));
    if (can('U') && outside && typed)
      await sameAsEngine(
        `update out of scope with hidden '${h}'`,
        (f) => ops.update(u, object, outside, { [f]: value }),
        (repo) => repo.update(outside, { [NO_SUCH_FIELD]: value }),
      );
    if (can('U') && ops.updateMany)
      await same(`updateMany filtered by hidden '${h}'`, (f) => ops.updateMany!(u, object, { [f]: value }, w.update));
    if (can('D') && ops.deleteMany) await same(`deleteMany filtered by hidden '${h}'`, (f) => ops.deleteMany!(u, object, { [f]: value }));
  }
  for (const r of c.readonly) {
    const value = w.values[r];
    const check = (what: string) => (o: Outcome) => {
      expectDenied(o, u, 'allow_edit', what);
      expect(o.error?.details?.field, what).to.equal(r);
    };
    if (can('C'))
      await step(`create with read-only '${r}'`, () => ops.create(u, object, { ...newRecord(), [r]: value }), check(`create with '${r}'`));
    if (can('U')) await step(`update read-only '${r}'`, () => ops.update(u, object, target, { [r]: value }), check(`update '${r}'`));
  }

  if (ops.updateMany) {
    await step(
      'updateMany {}',
      () => ops.updateMany!(u, object, {}, w.update),
      async (o) => {
        if (!can('U')) return expectDenied(o, u, 'allow_edit', 'updateMany');
        expect(o.count, `updateMany: ${JSON.stringify(o.raw)}`).to.equal(c.writeIds.length);
        const stored = await env.truth(object);
        const changed = RECORDS[object].filter((id) => Object.entries(w.update).every(([k, v]) => stored.get(id)?.[k] === v));
        expect(changed.sort(), 'updateMany changed exactly the records in scope').to.deep.equal([...c.writeIds].sort());
      },
    );
  }
  if (ops.deleteMany) {
    await step(
      'deleteMany {}',
      () => ops.deleteMany!(u, object, {}),
      async (o) => {
        if (!can('D')) return expectDenied(o, u, 'allow_delete', 'deleteMany');
        expect(o.count, `deleteMany: ${JSON.stringify(o.raw)}`).to.equal(c.writeIds.length);
        const left = [...(await env.truth(object)).keys()].sort();
        expect(left, 'deleteMany removed exactly the records in scope').to.deep.equal(
          RECORDS[object].filter((id) => !c.writeIds.includes(id)),
        );
      },
    );
  }
}

async function explicit(env: MatrixServer, ops: DataOps, x: ExplicitCase): Promise<void> {
  const u = MATRIX_USERS[x.user];
  const run = (data?: Rec): Promise<Outcome> => {
    const r = x.run;
    if (r.op === 'create') return ops.create(u, x.object, data ?? r.data);
    if (r.op === 'update') return ops.update(u, x.object, r.id, data ?? r.data);
    return ops.action!(u, x.object, r.action, { id: r.id, input: r.input });
  };
  const before = await env.capture();
  try {
    const o = await run();
    const e = x.expect;
    if ('ok' in e) {
      expectOk(o, x.title);
      e.check?.(o.record!);
      if (x.stored) expect((await env.truth(x.object)).get(x.stored.id)).to.deep.include(x.stored.values);
      return;
    }
    if ('denied' in e) expectDenied(o, u, e.denied, x.title);
    else if ('notFound' in e) {
      const r = x.run;
      if (r.op === 'create') throw new Error(`${x.title}: a create is never NOT_FOUND`);
      const probe = await (r.op === 'action'
        ? ops.action!(u, x.object, r.action, { id: NO_SUCH_ID, input: r.input })
        : ops.update(u, x.object, NO_SUCH_ID, r.data));
      expectNotFound(o, probe, r.id!, NO_SUCH_ID, x.title);
    } else {
      expect(o.status, `${x.title}: ${JSON.stringify(o.raw)}`).to.equal(400);
      expect(o.error?.code).to.equal('VALIDATION_ERROR');
      expect(o.error?.details?.fields).to.have.property(e.invalid);
      const data = (x.run as { data: Rec }).data;
      const probe = await run({ ...data, [e.invalid]: e.sameAs });
      expectSameAs(o, probe, String(data[e.invalid]), String(e.sameAs), `${x.title}: as for a record that does not exist`);
    }
    await env.expectUnchanged(before, x.title);
  } finally {
    await env.reset();
  }
}
