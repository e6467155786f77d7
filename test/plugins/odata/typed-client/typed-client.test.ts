/**
 * The OData service through a typed client generated from its own $metadata: odata2ts
 * (@odata2ts/odata2ts, a maintained generator) makes models, query objects and a service class
 * from the EDMX a real server (SQLite :memory:) serves over HTTP; the TypeScript compiler checks
 * them with a program written against them (usage.ts.tmpl); that program then runs on
 * @odata2ts/http-client-fetch against the server, as a manager (carol) and as a member (alice),
 * and every answer is compared with the same data read through JSON-RPC as the same user. What
 * odata2ts's query builder cannot say (aggregate in $apply, $count inside $expand) goes through
 * its HTTP client's `params` hook, built from the generated types where they help.
 */
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { identityHeader, USERS, type TestServer } from '../../../helpers/server';
import { plain, SQLITE, startODataServer } from '../helpers';
import { clientTypeChecker, generateClient, type GeneratedClient } from './generate';

type Row = Record<string, any>;
type User = (typeof USERS)[keyof typeof USERS];
/** The generated service, as the test sees it: opaque, handed back to the program's functions. */
type Service = { readonly __brand?: 'ObjectQlService' };

/** What usage.ts exports (the test cannot import its types: they exist once generated). */
interface Usage {
  connect(serviceUrl: string, headers: Record<string, string>): Service;
  openTasks(s: Service, minHours: number, top: number): Promise<{ count?: number; value: Row[] }>;
  tasksMatching(s: Service, word: string, statuses: string[]): Promise<Row[]>;
  tasksWithProject(s: Service, minHours: number): Promise<Row[]>;
  projectsWithAccount(s: Service): Promise<Row[]>;
  projectOfTask(s: Service, taskId: string): Promise<Row>;
  taskById(s: Service, taskId: string): Promise<Row>;
  costlyProjects(s: Service, over: number): Promise<Row[]>;
  taskStatuses(s: Service): Promise<Row[]>;
  openHoursPerProject(s: Service): Promise<{ count?: number; value: Row[] }>;
  taskTotals(s: Service): Promise<Row[]>;
  busiestAssignee(s: Service): Promise<Row[]>;
  tasksOfProjectNamed(s: Service, name: string): Promise<Row[]>;
  tasksByProjectName(s: Service, minBudget: number): Promise<Row[]>;
  projectsWithTaskOver(s: Service, hours: number): Promise<Row[]>;
  projectsAllTasksDone(s: Service): Promise<{ allDone: string[]; withTasks: string[] }>;
  projectsTagged(s: Service, tag: string): Promise<Row[]>;
  projectsWithOpenTasks(s: Service, top: number, skip: number): Promise<Row[]>;
  accountsWithProjectsAndTasks(s: Service): Promise<Row[]>;
  openTasksOfProject(s: Service, projectId: string): Promise<Row[]>;
  tasksOfCostlyProjects(s: Service, over: number): Promise<Row[]>;
  projectsWithExpenses(s: Service): Promise<Row[]>;
  projectsWithTaskCounts(s: Service, top: number): Promise<Row[]>;
}

const pick = (row: Row, fields: string[]) => Object.fromEntries(fields.map((f) => [f, row[f]]));

describe('OData through a client generated from $metadata (odata2ts, SQLite)', function () {
  let s: TestServer;
  let gen: GeneratedClient;
  let diagnostics: string[];
  let typeCheck: (files: string[]) => string[];
  let program: Usage;

  before(async function () {
    // Generating (a child process) and a strict type-check of the generated client take seconds.
    this.timeout(180_000);
    s = await startODataServer({}, { datasources: { default: SQLITE } });
    const res = await fetch(`${s.url}/odata/$metadata`, { headers: identityHeader(USERS.carol) });
    expect(res.status).to.equal(200);
    gen = await generateClient(await res.text());
    // A project without tasks, so that `all` over an empty collection is tried.
    const created = await s.rpc(
      { op: 'create', object: 'project', args: { id: 'prj-empty', name: 'Empty Project', owner: 'alice', status: 'planning' } },
      identityHeader(USERS.carol),
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    typeCheck = clientTypeChecker(gen.dir);
    diagnostics = typeCheck(gen.files);
    // tsx (registered by the test runner) compiles the generated TypeScript on require.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    program = require(join(gen.dir, 'client', 'usage.ts')) as Usage;
  });
  after(async () => {
    await s?.stop();
    await gen?.remove();
  });

  const as = (user: User) => program.connect(`${s.url}/odata`, identityHeader(user));
  /** The same data through JSON-RPC, as `user`. */
  async function find(user: User, object: string, args: Row): Promise<{ items: Row[]; meta: { total: number } }> {
    const res = await s.rpc({ op: 'find', object, args }, identityHeader(user));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }
  /** The rejection of a client call: odata2ts's FetchClientError carries the status. */
  async function rejection(p: Promise<unknown>): Promise<{ status?: number; message: string }> {
    try {
      await p;
    } catch (err) {
      return err as { status?: number; message: string };
    }
    throw new Error('expected the call to be rejected');
  }

  describe('generation', () => {
    it('generates models, query objects and the service from the served $metadata', async () => {
      const names = gen.files.map((f) => f.slice(f.lastIndexOf('/') + 1)).sort();
      expect(names).to.deep.equal(['ObjectQlModel.ts', 'ObjectQlService.ts', 'QObjectQl.ts', 'usage.ts']);
      const models = await readFile(join(gen.dir, 'client', 'ObjectQlModel.ts'), 'utf8');
      for (const type of ['account', 'contact', 'expense', 'milestone', 'project', 'task']) {
        expect(models).to.include(`export interface ${type} {`);
        expect(models).to.include(`export interface Editable${type}`);
      }
      expect(models).to.match(/project_nav\?: project \| null/);
      const qObjects = await readFile(join(gen.dir, 'client', 'QObjectQl.ts'), 'utf8');
      expect(qObjects).to.include('public readonly project_nav = new QEntityPath(this.withPrefix("project_nav"), () => Qproject)');
      expect(qObjects, 'one-to-many navigation').to.include(
        'public readonly tasks = new QEntityCollectionPath(this.withPrefix("tasks"), () => Qtask)',
      );
      expect(models).to.match(/tasks\?: Array<task>/);
    });

    it('type-checks the generated client with the program written against it (strict)', () => {
      expect(diagnostics, diagnostics.join('\n')).to.deep.equal([]);
    });

    it('refuses to compile queries naming a property the entity does not have or comparing with the wrong type', async function () {
      this.timeout(60_000);
      const bad = join(gen.dir, 'client', 'bad.ts');
      await writeFile(
        bad,
        [
          "import { applyText, type Service } from './usage';",
          "import type { task } from './ObjectQlModel';",
          'export const bad = (s: Service) => [',
          "  s.task().query((b) => b.select('no_such_property')),",
          "  s.task().query((b, q) => b.filter(q.estimate_hours.gt('many'))),",
          "  s.task().query((b) => b.expanding('title', () => undefined)),",
          '  s.project().query((b, q) => b.filter(q.budget.eq(1)).orderBy(q.nothing.asc())),',
          "  s.project().query((b, q) => b.filter(q.tasks.any((t) => t.done.eq('yes')))),",
          "  applyText<task>({ groupBy: ['status'], aggregate: [{ of: 'budget', with: 'sum', as: 'total' }] }),",
          '];',
          '',
        ].join('\n'),
      );
      // Only bad.ts's own errors: the previous test reports any in usage.ts, which bad.ts imports.
      const errors = typeCheck([bad]).filter((e) => e.startsWith('./client/bad.ts:'));
      const lines = errors.map((e) => Number(/^\.\/client\/bad\.ts:(\d+):/.exec(e)?.[1]));
      expect(lines, errors.join('\n')).to.deep.equal([4, 5, 6, 7, 8, 9]);
      expect(errors[0]).to.include('no_such_property');
      expect(errors[3]).to.include("'nothing'");
      expect(errors[5]).to.include('"budget"');
    });
  });

  describe('queries', () => {
    for (const [name, user] of [
      ['carol', USERS.carol],
      ['alice', USERS.alice],
    ] as const) {
      describe(`as ${name}`, () => {
        it('$filter, $select, $orderby, $top and $count equal the JSON-RPC find', async () => {
          const fields = ['id', 'title', 'estimate_hours'];
          const odata = await program.openTasks(as(user), 4, 2);
          const rpc = await find(user, 'task', {
            filters: [['done', '=', false], 'and', ['estimate_hours', '>=', 4]],
            fields,
            sort: [
              ['estimate_hours', 'desc'],
              ['title', 'asc'],
            ],
            top: 2,
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata.value)).to.deep.equal(rpc.items.map((r) => pick(r, fields)));
          expect(odata.count).to.equal(rpc.meta.total);
        });

        it('text functions and `in` from the query objects', async () => {
          const odata = await program.tasksMatching(as(user), 'launch', ['doing']);
          const rpc = await find(user, 'task', {
            filters: [['title', 'contains', 'launch'], 'or', ['status', 'in', ['doing']]],
            fields: ['id', 'status'],
            sort: 'id',
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(rpc.items.map((r) => pick(r, ['id', 'status'])));
        });

        it('$expand of a to-one navigation property with nested $select', async () => {
          const odata = await program.tasksWithProject(as(user), 4);
          const rpc = await find(user, 'task', {
            filters: [['estimate_hours', '>=', 4]],
            fields: ['id', 'title', 'project'],
            expand: { project: { fields: ['id', 'name', 'status'] } },
            sort: 'title',
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(
            rpc.items.map((r) => ({
              id: r.id,
              title: r.title,
              project: r.project?.id ?? r.project,
              // The key comes with an expanded entity whatever its $select.
              project_nav: r.project && typeof r.project === 'object' ? pick(r.project, ['id', 'name', 'status']) : null,
            })),
          );
        });

        it('$expand project → account (to-one), with nested $select', async () => {
          const odata = await program.projectsWithAccount(as(user));
          const rpc = await find(user, 'project', {
            fields: ['id', 'name'],
            expand: { account: { fields: ['id', 'name', 'industry'] } },
            sort: 'name',
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(
            rpc.items.map((r) => ({ id: r.id, name: r.name, account_nav: r.account ? pick(r.account, ['id', 'name', 'industry']) : null })),
          );
        });

        it('a navigation segment (task(…)/project_nav) and a single entity with $expand', async () => {
          const [task] = (await find(user, 'task', { fields: ['id', 'project'], sort: 'id', top: 1 })).items;
          const [project] = (await find(user, 'project', { filters: [['id', '=', task.project]] })).items;
          const odataProject = plain(await program.projectOfTask(as(user), task.id));
          expect(odataProject.id).to.equal(task.project);
          if (project) expect(pick(odataProject, ['name', 'status', 'budget'])).to.deep.equal(pick(project, ['name', 'status', 'budget']));
          const odataTask = plain(await program.taskById(as(user), task.id));
          expect(odataTask.id).to.equal(task.id);
          expect(odataTask.project).to.equal(task.project);
        });

        it('$apply=groupby((status)) from the query builder equals a JSON-RPC groupBy', async () => {
          const odata = await program.taskStatuses(as(user));
          const rpc = await find(user, 'task', { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], sort: 'status' });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(rpc.items.map((r) => ({ status: r.status })));
        });

        it('$apply filter/groupby/aggregate (sum, $count) with $orderby on an alias and $count of the groups', async () => {
          const odata = await program.openHoursPerProject(as(user));
          const rpc = await find(user, 'task', {
            filters: [['done', '=', false]],
            groupBy: ['project'],
            aggregate: [
              { func: 'sum', field: 'estimate_hours', alias: 'hours' },
              { func: 'count', alias: 'n' },
            ],
            sort: [
              ['hours', 'desc'],
              ['project', 'asc'],
            ],
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata.value)).to.deep.equal(rpc.items.map((r) => pick(r, ['project', 'hours', 'n'])));
          expect(odata.count).to.equal(rpc.items.length);
        });

        it('$apply aggregate over the whole set (average, max, countdistinct)', async () => {
          const odata = await program.taskTotals(as(user));
          const rpc = await find(user, 'task', {
            aggregate: [
              { func: 'avg', field: 'estimate_hours', alias: 'mean' },
              { func: 'max', field: 'estimate_hours', alias: 'longest' },
              { func: 'countdistinct', field: 'project', alias: 'projects' },
              { func: 'countdistinct', field: 'assignee', alias: 'people' },
            ],
          });
          expect(rpc.items).to.have.length(1);
          expect(plain(odata)).to.deep.equal([pick(rpc.items[0], ['mean', 'longest', 'projects', 'people'])]);
        });

        it('$apply groupby then topcount', async () => {
          const odata = await program.busiestAssignee(as(user));
          const rpc = await find(user, 'task', {
            groupBy: ['assignee'],
            aggregate: [{ func: 'sum', field: 'estimate_hours', alias: 'hours' }],
            sort: [['hours', 'desc']],
            top: 1,
          });
          expect(plain(odata)).to.deep.equal(rpc.items.map((r) => pick(r, ['assignee', 'hours'])));
        });

        it("a navigation path in $filter (project_nav/name eq '…') equals JSON-RPC's dotted path", async () => {
          const odata = await program.tasksOfProjectNamed(as(user), 'Apollo Website Relaunch');
          const rpc = await find(user, 'task', {
            filters: [['project.name', '=', 'Apollo Website Relaunch']],
            fields: ['id', 'project'],
            sort: 'id',
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(rpc.items.map((r) => pick(r, ['id', 'project'])));
        });

        it('navigation paths in $filter and $orderby (project_nav/budget, project_nav/name desc)', async () => {
          const odata = await program.tasksByProjectName(as(user), 10000);
          const rpc = await find(user, 'task', {
            filters: [['project.budget', '>', 10000]],
            fields: ['id', 'project'],
            sort: [
              ['project.name', 'desc'],
              ['id', 'asc'],
            ],
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(rpc.items.map((r) => pick(r, ['id', 'project'])));
        });

        it('lambda any over tasks: the projects of the tasks JSON-RPC finds', async () => {
          const odata = await program.projectsWithTaskOver(as(user), 5);
          const tasks = await find(user, 'task', { filters: [['estimate_hours', '>', 5]], fields: ['project'] });
          const projects = await find(user, 'project', {
            filters: [['id', 'in', [...new Set(tasks.items.map((t) => t.project))]]],
            fields: ['id'],
            sort: 'id',
          });
          expect(projects.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(projects.items.map((r) => ({ id: r.id })));
        });

        it('lambda all over tasks (vacuously true without tasks) and any() without a condition', async () => {
          const odata = await program.projectsAllTasksDone(as(user));
          const projects = (await find(user, 'project', { fields: ['id'], sort: 'id' })).items.map((p) => p.id as string);
          const tasks = (await find(user, 'task', { fields: ['project', 'done'] })).items;
          const open = new Set(tasks.filter((t) => !t.done).map((t) => t.project));
          const some = new Set(tasks.map((t) => t.project));
          expect(odata.allDone).to.deep.equal(projects.filter((id) => !open.has(id)));
          expect(odata.withTasks).to.deep.equal(projects.filter((id) => some.has(id)));
          expect(odata.allDone).to.include('prj-empty');
          expect(odata.withTasks).not.to.include('prj-empty');
        });

        it('lambda any over a multiple-valued property (tags/any(a:a eq …))', async () => {
          const odata = await program.projectsTagged(as(user), 'infrastructure');
          const rpc = await find(user, 'project', { filters: [['tags', '=', 'infrastructure']], fields: ['id'], sort: 'id' });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(rpc.items.map((r) => ({ id: r.id })));
        });

        it('$expand of one-to-many tasks with nested $select, $filter, $orderby, $top and $skip', async () => {
          let expanded = 0;
          for (const [top, skip] of [
            [2, 0],
            [1, 1],
          ]) {
            const odata = await program.projectsWithOpenTasks(as(user), top, skip);
            const rpc = await find(user, 'project', {
              fields: ['id', 'name'],
              expand: {
                tasks: {
                  fields: ['id', 'title', 'estimate_hours'],
                  filters: [['done', '=', false]],
                  sort: [
                    ['estimate_hours', 'desc'],
                    ['id', 'asc'],
                  ],
                  top,
                  skip,
                },
              },
              sort: 'name',
            });
            expanded += rpc.items.reduce((n, p) => n + p.tasks.length, 0);
            expect(plain(odata)).to.deep.equal(
              rpc.items.map((p) => ({
                id: p.id,
                name: p.name,
                tasks: p.tasks.map((t: Row) => pick(t, ['id', 'title', 'estimate_hours'])),
              })),
            );
          }
          expect(expanded).to.be.above(0);
        });

        it('$count inside the $expand of tasks, through the HTTP client params hook', async () => {
          const odata = await program.projectsWithTaskCounts(as(user), 1);
          const rpc = await find(user, 'project', {
            fields: ['id'],
            expand: { tasks: { fields: ['id'], sort: 'id', top: 1, count: true } },
            sort: 'id',
          });
          expect(rpc.items.some((p) => p['tasks@count'] > 1)).to.equal(true);
          expect(odata.map((p) => ({ id: p.id, tasks: plain(p.tasks), count: p['tasks@odata.count'] }))).to.deep.equal(
            rpc.items.map((p) => ({ id: p.id, tasks: p.tasks.map((t: Row) => ({ id: t.id })), count: p['tasks@count'] })),
          );
        });

        it('$expand two one-to-many levels: account → projects → tasks', async () => {
          const odata = await program.accountsWithProjectsAndTasks(as(user));
          const rpc = await find(user, 'account', {
            fields: ['id', 'name'],
            expand: {
              projects: { fields: ['id', 'name'], sort: 'name', expand: { tasks: { fields: ['id', 'title'], sort: 'title', top: 1 } } },
            },
            sort: 'id',
          });
          expect(rpc.items.some((a) => a.projects.length > 0)).to.equal(true);
          expect(plain(odata)).to.deep.equal(
            rpc.items.map((a) => ({
              id: a.id,
              name: a.name,
              projects: a.projects.map((p: Row) => ({ id: p.id, name: p.name, tasks: p.tasks.map((t: Row) => pick(t, ['id', 'title'])) })),
            })),
          );
        });

        it("a one-to-many navigation segment, project('…')/tasks, queried further", async () => {
          const odata = await program.openTasksOfProject(as(user), 'prj-apollo');
          const rpc = await find(user, 'task', {
            filters: [['project', '=', 'prj-apollo'], 'and', ['done', '=', false]],
            fields: ['id', 'title'],
            sort: 'title',
          });
          expect(rpc.items).to.have.length.above(0);
          expect(plain(odata)).to.deep.equal(rpc.items.map((r) => pick(r, ['id', 'title'])));
        });
      });
    }

    it('a manager filters on actual_cost; a member may not (400 through the client)', async () => {
      const carolIds = (await program.costlyProjects(as(USERS.carol), 1000)).map((p) => p.id);
      const rpc = await find(USERS.carol, 'project', { filters: [['actual_cost', '>', 1000]], fields: ['id'] });
      expect(carolIds).to.deep.equal(rpc.items.map((r) => r.id));
      expect(carolIds).to.deep.equal(['prj-apollo']);
      const err = await rejection(program.costlyProjects(as(USERS.alice), 1000));
      expect(err.status).to.equal(400);
      expect(err.message).to.include('actual_cost');
    });

    it('the same through a navigation path (project_nav/actual_cost), and an $expand of expenses a member may not read', async () => {
      const viaPath = await program.tasksOfCostlyProjects(as(USERS.carol), 1000);
      const rpc = await find(USERS.carol, 'task', { filters: [['project.actual_cost', '>', 1000]], fields: ['id'] });
      expect(viaPath.map((t) => t.id).sort()).to.deep.equal(rpc.items.map((t) => t.id).sort());
      expect(viaPath).to.have.length(3);
      const denied = await rejection(program.tasksOfCostlyProjects(as(USERS.alice), 1000));
      expect(denied.status).to.equal(400);
      expect(denied.message).to.include('actual_cost');

      const expenses = await program.projectsWithExpenses(as(USERS.carol));
      const rpcExpenses = await find(USERS.carol, 'project', { fields: ['id'], expand: { expenses: {} }, sort: 'id' });
      const amounts = (rows: Row[]) =>
        rows.map((p) => ({
          id: p.id,
          expenses: p.expenses
            .map((x: Row) => pick(x, ['id', 'project', 'amount']))
            .sort((a: Row, b: Row) => String(a.id).localeCompare(String(b.id))),
        }));
      expect(amounts(plain(expenses))).to.deep.equal(amounts(rpcExpenses.items));
      expect(expenses.some((p) => p.expenses.length > 0)).to.equal(true);
      const forbidden = await rejection(program.projectsWithExpenses(as(USERS.alice)));
      expect(forbidden.status).to.equal(403);
      expect(forbidden.message).to.include('expense');
    });

    it("answers the sample's known data (carol), so the comparisons above compare something", async () => {
      const carol = as(USERS.carol);
      const ids = (rows: Row[]) => rows.map((r) => r.id as string);
      expect(ids(await program.tasksOfProjectNamed(carol, 'Apollo Website Relaunch'))).to.deep.equal([
        'tsk-apollo-api',
        'tsk-apollo-design',
        'tsk-apollo-launch',
      ]);
      expect(ids(await program.projectsWithTaskOver(carol, 20))).to.deep.equal(['prj-apollo']);
      expect(await program.projectsAllTasksDone(carol)).to.deep.equal({
        allDone: ['prj-empty', 'prj-mercury'],
        withTasks: ['prj-apollo', 'prj-gemini', 'prj-mercury'],
      });
      expect(ids(await program.projectsTagged(carol, 'research'))).to.deep.equal(['prj-gemini']);
      const open = await program.projectsWithOpenTasks(carol, 1, 0);
      expect(open.map((p) => [p.id, ids(p.tasks)])).to.deep.equal([
        ['prj-apollo', ['tsk-apollo-api']],
        ['prj-empty', []],
        ['prj-gemini', ['tsk-gemini-research']],
        ['prj-mercury', []],
      ]);
      expect(await program.taskStatuses(carol)).to.deep.equal([{ status: 'doing' }, { status: 'done' }, { status: 'todo' }]);
    });
  });
});
