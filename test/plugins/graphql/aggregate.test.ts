/**
 * Counts, aggregates and pages (docs/graphql.md, "Counts, aggregates and pages") on a real
 * server: the numbers JSON-RPC gives for the same request, the caller's permissions (record
 * scope, a field the caller may not read refused in groupBy and aggregates), the page info of
 * repo.find's meta, the cost of the new list-like fields, and names that must not clash.
 */
import { expect } from 'chai';
import { buildSchema } from '../../../plugins/graphql';
import type { DataEngine, ObjectDefinition } from '../../../kernel';
import { USERS, type TestServer } from '../../helpers/server';
import { as, gql, startGraphQLServer } from './helpers';

describe('GraphQL counts, aggregates and pages', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer({}, { rpc: true });
  });
  after(async () => {
    await s?.stop();
  });

  const data = async (query: string, user: object = USERS.admin, variables?: Record<string, unknown>) => {
    const res = await gql(s, query, variables, user as never);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data;
  };

  describe('<object>Count', () => {
    it('counts what filters and where select, as the caller sees it', async () => {
      expect(await data('{ projectCount }')).to.deep.equal({ projectCount: 3 });
      expect(await data('{ projectCount(where: {status: {ne: "done"}}) }')).to.deep.equal({ projectCount: 2 });
      expect(await data('{ projectCount(filters: "[[\\"budget\\", \\">\\", 10000]]", where: {status: {eq: "planning"}}) }')).to.deep.equal({
        projectCount: 1,
      });
      expect(await data('{ projectCount taskCount }', USERS.alice)).to.deep.equal({ projectCount: 2, taskCount: 3 });
    });

    it('refuses a field the caller may not read, and a caller who may not read the object', async () => {
      const hidden = await gql(s, '{ projectCount(where: {actual_cost: {gt: 0}}) }', undefined, USERS.alice);
      expect(hidden.body.data).to.equal(null);
      expect(hidden.body.errors[0].message).to.equal("Filter: unknown field 'actual_cost' on object 'project'");
      const nobody = await gql(s, '{ projectCount }', undefined, USERS.nobody);
      expect(nobody.body.errors[0].extensions.code).to.equal('FORBIDDEN');
    });
  });

  describe('<object>Aggregate', () => {
    it('gives the numbers JSON-RPC gives for the same groupBy and aggregates', async () => {
      const { projectAggregate } = await data(`{
        projectAggregate(groupBy: [status], orderBy: [{status: asc}]) {
          group { status }
          count
          sum { budget actual_cost }
          avg { budget }
          min { budget start_date name }
          max { budget }
          countdistinct { owner }
        }
      }`);
      const rpc = await s.rpc(
        {
          op: 'find',
          object: 'project',
          args: {
            groupBy: ['status'],
            sort: [['status', 'asc']],
            aggregate: [
              { func: 'count', alias: 'count' },
              { func: 'sum', field: 'budget', alias: 'sum_budget' },
              { func: 'sum', field: 'actual_cost', alias: 'sum_actual_cost' },
              { func: 'avg', field: 'budget', alias: 'avg_budget' },
              { func: 'min', field: 'budget', alias: 'min_budget' },
              { func: 'min', field: 'start_date', alias: 'min_start_date' },
              { func: 'min', field: 'name', alias: 'min_name' },
              { func: 'max', field: 'budget', alias: 'max_budget' },
              { func: 'countdistinct', field: 'owner', alias: 'owners' },
            ],
          },
        },
        as(USERS.admin),
      );
      expect(rpc.status).to.equal(200);
      expect(projectAggregate).to.deep.equal(
        rpc.body.items.map((r: any) => ({
          group: { status: r.status },
          count: r.count,
          sum: { budget: r.sum_budget, actual_cost: r.sum_actual_cost },
          avg: { budget: r.avg_budget },
          min: { budget: r.min_budget, start_date: r.min_start_date, name: r.min_name },
          max: { budget: r.max_budget },
          countdistinct: { owner: r.owners },
        })),
      );
      expect(projectAggregate.map((r: any) => r.group.status)).to.deep.equal(['active', 'done', 'planning']);
      expect(projectAggregate[0]).to.deep.include({ count: 1, sum: { budget: 120000, actual_cost: 4699.5 } });
    });

    it('without groupBy: one row; min and max of dates; aliases and fragments merge', async () => {
      expect(await data('{ taskAggregate(where: {done: {eq: false}}) { count min { due_at } max { due_at } } }')).to.deep.equal({
        taskAggregate: [{ count: 4, min: { due_at: '2025-04-04T17:00:00.000Z' }, max: { due_at: '2025-09-15T12:00:00.000Z' } }],
      });
      const merged = await data(`{
        taskAggregate(groupBy: [project], orderBy: [{project: asc}]) { group { project } a: sum { estimate_hours } ...F }
      } fragment F on TaskAggregateRow { b: sum { hours: estimate_hours } n: count }`);
      expect(merged.taskAggregate).to.deep.equal([
        { group: { project: 'prj-apollo' }, a: { estimate_hours: 42 }, b: { hours: 42 }, n: 3 },
        { group: { project: 'prj-gemini' }, a: { estimate_hours: 18 }, b: { hours: 18 }, n: 2 },
        { group: { project: 'prj-mercury' }, a: { estimate_hours: 4 }, b: { hours: 4 }, n: 1 },
      ]);
      // Only the groups: no aggregate at all.
      expect(await data('{ projectAggregate(groupBy: [owner], orderBy: [{owner: desc}]) { group { owner } } }')).to.deep.equal({
        projectAggregate: [{ group: { owner: 'bob' } }, { group: { owner: 'alice' } }],
      });
    });

    it('pages groups with top and skip; orderBy may name groupBy fields only', async () => {
      const page = await data(
        '{ taskAggregate(groupBy: [status], orderBy: [{status: desc}], top: 2, skip: 1) { group { status } count } }',
      );
      expect(page.taskAggregate).to.deep.equal([
        { group: { status: 'done' }, count: 2 },
        { group: { status: 'doing' }, count: 2 },
      ]);
      const other = await gql(s, '{ taskAggregate(groupBy: [status], orderBy: [{title: asc}]) { count } }', undefined, USERS.admin);
      expect(other.body.errors[0].message).to.equal("orderBy of taskAggregate may name groupBy fields only, not 'title'");
    });

    it('runs as the caller: record scope, and no group or aggregate on a field the caller may not read', async () => {
      expect(await data('{ projectAggregate { count sum { budget } } }', USERS.alice)).to.deep.equal({
        projectAggregate: [{ count: 2, sum: { budget: 128000 } }],
      });
      for (const query of [
        '{ projectAggregate { sum { actual_cost } } }',
        '{ projectAggregate { max { actual_cost } } }',
        '{ projectAggregate { countdistinct { actual_cost } } }',
        '{ projectAggregate(groupBy: [actual_cost]) { count } }',
        '{ projectAggregate(where: {actual_cost: {gt: 1}}) { count } }',
      ]) {
        const res = await gql(s, query, undefined, USERS.alice);
        expect(res.body.data, query).to.equal(null);
        expect(res.body.errors[0].extensions, query).to.deep.equal({
          code: 'INVALID_REQUEST',
          details: { field: 'actual_cost', object: 'project' },
        });
      }
      expect((await gql(s, '{ projectAggregate { sum { actual_cost } } }', undefined, USERS.carol)).body.errors).to.equal(undefined);
    });

    it('sum and avg only of numeric fields; groupBy only by fields that can be grouped', async () => {
      const text = await gql(s, '{ projectAggregate { sum { name } } }', undefined, USERS.admin);
      expect(text.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
      const json = await gql(s, '{ projectAggregate(groupBy: [settings]) { count } }', undefined, USERS.admin);
      expect(json.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    });
  });

  describe('<object>Page', () => {
    it('answers the items of <object>List and the page info of repo.find', async () => {
      const { projectPage, projectList } = await data(
        '{ projectPage(top: 2, skip: 0, orderBy: [{name: asc}]) { items { id name } total page size pages has_next } projectList(top: 2, sort: "name") { id name } }',
      );
      expect(projectPage).to.deep.equal({ items: projectList, total: 3, page: 1, size: 2, pages: 2, has_next: true });
      const last = await data('{ projectPage(top: 2, skip: 2, sort: "name", where: {budget: {ge: 0}}) { items { id } page has_next } }');
      expect(last.projectPage).to.deep.equal({ items: [{ id: 'prj-mercury' }], page: 2, has_next: false });
    });

    it('runs as the caller, and checks the items selected like any selection', async () => {
      const mine = await data('{ projectPage { items { id owner } total } }', USERS.alice);
      expect(mine.projectPage.total).to.equal(2);
      expect(mine.projectPage.items.every((p: any) => p.owner === 'alice')).to.equal(true);
      const hidden = await gql(s, '{ projectPage { total items { ...F } } } fragment F on Project { actual_cost }', undefined, USERS.alice);
      expect(hidden.body.errors[0].message).to.equal("fields: unknown field 'actual_cost' on object 'project'");
    });
  });
});

describe('GraphQL cost of counts, aggregates and pages', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer({ maxCost: 100 });
  });
  after(async () => {
    await s?.stop();
  });
  const cost = async (query: string) => {
    const res = await gql(s, query, undefined, USERS.admin);
    return res.status === 400 ? res.body.errors[0].extensions.details : res.body.errors;
  };
  const refused = { limit: 'maxCost', max: 100 };

  it('a page multiplies what its items select by its top, and counts its page info once', async () => {
    // 1 + (items 1 + 2, total 1, has_next 1) + 9 more rows × 3 = 33
    expect(await cost('{ projectPage(top: 10) { items { id name } total has_next } }')).to.equal(undefined);
    // 1 + 5 + 39 × 3 = 123
    expect(await cost('{ projectPage(top: 40) { items { id name } total has_next } }')).to.deep.equal(refused);
    expect(await cost('{ projectPage(top: 40) { ...P } } fragment P on ProjectPage { items { id name } }')).to.deep.equal(refused);
    // Only the page info: no rows to multiply.
    expect(await cost('{ projectPage(top: 1000) { total pages has_next } }')).to.equal(undefined);
    // The same rows as a list: 1 + 40 × 2 = 81.
    expect(await cost('{ projectList(top: 40) { id name } }')).to.equal(undefined);
  });

  it('an aggregate counts as a list of its top rows; a count costs 1', async () => {
    expect(await cost('{ projectAggregate(top: 20, groupBy: [status]) { group { status } count } }')).to.equal(undefined);
    expect(await cost('{ projectAggregate(top: 40, groupBy: [status]) { group { status } count } }')).to.deep.equal(refused);
    // Without top: the kernel's defaultTop (100) rows.
    expect(await cost('{ projectAggregate { count } }')).to.deep.equal(refused);
    expect(await cost('{ a: projectCount b: taskCount c: accountCount }')).to.equal(undefined);
  });
});

describe('GraphQL typed names', () => {
  const def = (name: string, fields: Record<string, object> = {}): ObjectDefinition =>
    ({
      name,
      label: name,
      fields: Object.fromEntries(Object.entries({ id: { type: 'text' }, ...fields }).map(([f, d]) => [f, { name: f, label: f, ...d }])),
    }) as unknown as ObjectDefinition;
  const engine = { limits: { maxFilterDepth: 16, maxFilterConditions: 200, maxJsonDepth: 64 } } as unknown as DataEngine;
  const build =
    (...objects: ObjectDefinition[]) =>
    () =>
      buildSchema(objects, { engine });

  it('stops on a typed name another object maps to, naming both', () => {
    expect(build(def('project'), def('projectPage'))).to.throw(
      "object 'project' maps to the type 'ProjectPage', which object 'projectPage' maps to as well",
    );
    expect(build(def('project'), def('projectCount'))).to.throw(
      "object 'project' maps to the root field 'projectCount', which object 'projectCount' maps to as well",
    );
    expect(build(def('thing'), def('thingFilter'))).to.throw("object 'thing' maps to the type 'ThingFilter', which object 'thingFilter'");
    expect(build(def('stringFilter'))).to.throw(
      "object 'stringFilter' maps to the type 'StringFilter', which the operator input StringFilter maps to as well",
    );
    expect(build(def('thing'), def('thingWhere'))).to.throw("object 'thingWhere' maps to the type 'ThingWhere', which object 'thing'");
  });

  it('stops on a field that clashes inside a where or orderBy input, naming both', () => {
    expect(build(def('thing', { _or: { type: 'text' } }))).to.throw(
      "field '_or' of object 'thing' maps to '_or' of the input ThingFilter, which the operator '_or' maps to as well",
    );
    expect(
      build(def('other'), def('thing', { other: { type: 'lookup', reference_to: 'other' }, other_record: { type: 'text' } })),
    ).to.throw(
      "relation 'other' of object 'thing' maps to 'other_record' of the input ThingFilter, which field 'other_record' of object 'thing' maps to as well",
    );
  });

  it('builds for objects without numeric fields, and leaves fields named true, false or null out of the group enum', () => {
    const { sdl } = build(def('thing', { name: { type: 'text' }, null: { type: 'text' } }))();
    expect(sdl).to.contain('enum ThingField {\n  id\n  name\n}');
    expect(sdl).to.not.contain('ThingAggregateNumbers');
  });
});
