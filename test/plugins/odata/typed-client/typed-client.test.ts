/**
 * The OData service through a typed client generated from its own $metadata: odata2ts
 * (@odata2ts/odata2ts, a maintained generator) makes models, query objects and a service class
 * from the EDMX a real server (SQLite :memory:) serves over HTTP; the TypeScript compiler checks
 * them with a program written against them (usage.ts.tmpl); that program then runs on
 * @odata2ts/http-client-fetch against the server, as a manager (carol) and as a member (alice),
 * and every answer is compared with the same data read through JSON-RPC as the same user.
 */
import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { identityHeader, USERS, type TestServer } from '../../../helpers/server';
import { plain, SQLITE, startODataServer } from '../helpers';
import { generateClient, typeCheck, type GeneratedClient } from './generate';

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
}

const pick = (row: Row, fields: string[]) => Object.fromEntries(fields.map((f) => [f, row[f]]));

describe('OData through a client generated from $metadata (odata2ts, SQLite)', function () {
  let s: TestServer;
  let gen: GeneratedClient;
  let diagnostics: string[];
  let program: Usage;

  before(async function () {
    // Generating (a child process) and a strict type-check of the generated client take seconds.
    this.timeout(180_000);
    s = await startODataServer({}, { datasources: { default: SQLITE } });
    const res = await fetch(`${s.url}/odata/$metadata`, { headers: identityHeader(USERS.carol) });
    expect(res.status).to.equal(200);
    gen = await generateClient(await res.text());
    diagnostics = typeCheck(gen.files, gen.dir);
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
      const { readFile } = await import('node:fs/promises');
      const models = await readFile(join(gen.dir, 'client', 'ObjectQlModel.ts'), 'utf8');
      for (const type of ['account', 'contact', 'expense', 'milestone', 'project', 'task']) {
        expect(models).to.include(`export interface ${type} {`);
        expect(models).to.include(`export interface Editable${type}`);
      }
      expect(models).to.match(/project_nav\?: project \| null/);
      const qObjects = await readFile(join(gen.dir, 'client', 'QObjectQl.ts'), 'utf8');
      expect(qObjects).to.include('public readonly project_nav = new QEntityPath(this.withPrefix("project_nav"), () => Qproject)');
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
          "import type { Service } from './usage';",
          'export const bad = (s: Service) => [',
          "  s.task().query((b) => b.select('no_such_property')),",
          "  s.task().query((b, q) => b.filter(q.estimate_hours.gt('many'))),",
          "  s.task().query((b) => b.expanding('title', () => undefined)),",
          '  s.project().query((b, q) => b.filter(q.budget.eq(1)).orderBy(q.nothing.asc())),',
          '];',
          '',
        ].join('\n'),
      );
      const errors = typeCheck([bad], gen.dir);
      const lines = errors.map((e) => Number(/^\.\/client\/bad\.ts:(\d+):/.exec(e)?.[1]));
      expect(lines, errors.join('\n')).to.deep.equal([3, 4, 5, 6]);
      expect(errors[0]).to.include('no_such_property');
      expect(errors[3]).to.include("'nothing'");
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
  });
});
