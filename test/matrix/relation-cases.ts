/**
 * The matrix through relations: conditions through a to-one relation (`milestone` by
 * `project.name`), one-to-many expand (a project's `tasks`) and any over one-to-many relations,
 * for every user. The related object is read as the user sees it: not readable → denied naming it,
 * a hidden field → answered as a field that does not exist, records out of scope → never matched
 * or returned, so nothing leaks by inference.
 */
import { expect } from 'chai';
import { expectDenied, expectNoHidden, expectOk, expectSameAs, sortedIds } from './checks';
import type { DataOps, ListQuery } from './protocol';
import type { MatrixServer } from './server';
import { cell, NO_SUCH_FIELD, OBJECTS, RECORDS, type ObjectName } from './table';
import { MATRIX_USERS, USER_NAMES, type MatrixUser, type UserName } from './users';

interface Ctx {
  env: MatrixServer;
  ops: DataOps;
  u: MatrixUser;
  user: UserName;
}

export function relationCases(env: MatrixServer, ops: DataOps): void {
  if (ops.lacks?.through) it.skip(`conditions through relations: ${ops.lacks.through}`);
  if (ops.lacks?.oneToMany) it.skip(`one-to-many expand: ${ops.lacks.oneToMany}`);
  if (!ops.listAny) it.skip('any over one-to-many: the protocol has no syntax for it (cases left out)');
  for (const user of USER_NAMES) {
    const ctx: Ctx = { env, ops, u: MATRIX_USERS[user], user };
    if (!ops.lacks?.through) it(`${user}: conditions through to-one relations`, () => through(ctx));
    if (!ops.lacks?.oneToMany) it(`${user}: one-to-many expand`, () => oneToMany(ctx));
    if (ops.listAny) it(`${user}: any over one-to-many relations`, () => anyOf(ctx));
  }
}

const reverse = (env: MatrixServer, object: string) => env.kernel.engine.relations(object).filter((r) => r.kind === 'reverse');
const readableFields = (env: MatrixServer, object: ObjectName, user: UserName) =>
  env.fields(object).filter((f) => !cell(object, user).hidden.includes(f));
const selection = (env: MatrixServer, ops: DataOps, object: ObjectName, user: UserName): Pick<ListQuery, 'fields'> =>
  ops.lacks?.defaultFields ? { fields: readableFields(env, object, user) } : {};

/** Each readable object filtered by its to-one relations' `name`: only related records the user sees match. */
async function through({ env, ops, u, user }: Ctx): Promise<void> {
  for (const object of OBJECTS) {
    const c = cell(object, user);
    if (!c.ops.includes('R')) continue;
    const truth = await env.truth(object);
    for (const { field, target } of env.relations(object)) {
      if (!env.fields(target).includes('name')) continue;
      const t = cell(target as ObjectName, user);
      const targets = await env.truth(target);
      const name = targets.get(RECORDS[target as ObjectName][0])!.name as string;
      const what = `${object} by ${field}.name = ${name}`;
      const res = await ops.list(u, object, { filters: [[`${field}.name`, '=', name]], top: 1000, ...selection(env, ops, object, user) });
      if (!t.ops.includes('R')) {
        expectDenied(res, u, 'allow_read', what);
        expect(res.error?.details?.object, `${what}: the object denied`).to.equal(target);
        continue;
      }
      expectOk(res, what);
      const expected = c.ids.filter((id) => {
        const ref = truth.get(id)![field] as string | null;
        return ref !== null && t.ids.includes(ref) && targets.get(ref)!.name === name;
      });
      expect(sortedIds(res.items), what).to.deep.equal([...expected].sort());
      for (const h of t.hidden) {
        const run = (f: string) => ops.list(u, object, { filters: [[`${field}.${f}`, '!=', 'x']], ...selection(env, ops, object, user) });
        expectSameAs(await run(h), await run(NO_SUCH_FIELD), h, NO_SUCH_FIELD, `${object} by hidden ${field}.${h}`);
      }
    }
  }
}

/** Each readable object with each one-to-many relation expanded: exactly the related records the user sees. */
async function oneToMany({ env, ops, u, user }: Ctx): Promise<void> {
  for (const object of OBJECTS) {
    if (!cell(object, user).ops.includes('R')) continue;
    for (const { name, target, field } of reverse(env, object)) {
      const t = cell(target as ObjectName, user);
      const what = `${object} with ${name}`;
      const fields = readableFields(env, target as ObjectName, user);
      const res = await ops.list(u, object, {
        sort: [['id', 'asc']],
        top: 1000,
        ...selection(env, ops, object, user),
        expand: { [name]: { sort: [['id', 'asc']], ...(ops.lacks?.defaultFields ? { fields } : {}) } },
      });
      if (!t.ops.includes('R')) {
        expectDenied(res, u, 'allow_read', what);
        expect(res.error?.details?.object, `${what}: the object denied`).to.equal(target);
        continue;
      }
      expectOk(res, what);
      const children = await env.truth(target);
      for (const parent of res.items!) {
        const expected = t.ids.filter((id) => children.get(id)![field] === parent.id).sort();
        const got = (parent[name] ?? []) as Array<Record<string, unknown>>;
        expect(
          got.map((r) => r.id),
          `${what}: ${parent.id as string}`,
        ).to.deep.equal(expected);
        for (const record of got) expectNoHidden(record, t.hidden, `${what}: ${record.id as string}`);
      }
    }
  }
}

/** Each readable object by "any related record is X", for every record X of each one-to-many relation. */
async function anyOf({ env, ops, u, user }: Ctx): Promise<void> {
  for (const object of OBJECTS) {
    const c = cell(object, user);
    if (!c.ops.includes('R')) continue;
    for (const { name, target, field } of reverse(env, object)) {
      const t = cell(target as ObjectName, user);
      const children = await env.truth(target);
      for (const child of RECORDS[target as ObjectName]) {
        const what = `${object} with any ${name} id = ${child}`;
        const res = await ops.listAny!(u, object, name, ['id', '=', child]);
        if (!t.ops.includes('R')) {
          expectDenied(res, u, 'allow_read', what);
          break;
        }
        expectOk(res, what);
        const parent = children.get(child)![field] as string | null;
        const expected = t.ids.includes(child) && parent !== null && c.ids.includes(parent) ? [parent] : [];
        expect(sortedIds(res.items), what).to.deep.equal(expected);
      }
    }
  }
}
