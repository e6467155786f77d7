/**
 * Sorting through a to-one relation end to end over JSON-RPC (`sort: '-project.name'`), on the
 * sample application served from the memory driver and from each SQL engine: the caller's scope on
 * the related object decides what sorts as null, and every bad path is a 400 naming field and
 * object. A related object the caller may not read is FORBIDDEN; a datasource that cannot sort
 * through a relation is refused by the engine.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryDatasource } from '../../drivers/memory';
import type { DriverCapabilities } from '../../kernel/drivers';
import { USERS, startServer, type TestServer } from '../helpers/server';
import { DIALECTS, openNamespace, requireDialect, tempDir, type Namespace } from './sql/helpers';

type User = (typeof USERS)[keyof typeof USERS];

async function titles(s: TestServer, sort: unknown, user: User, extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await s.rpc({ op: 'find', object: 'task', args: { fields: ['title'], sort, ...extra }, user });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return (res.body.items as Array<{ title: string }>).map((t) => t.title);
}

async function refusal(s: TestServer, args: unknown, user: User = USERS.carol, op = 'find', object = 'task') {
  const res = await s.rpc({ op, object, args, user });
  expect(res.status, JSON.stringify(res.body)).to.be.oneOf([400, 403]);
  return { status: res.status, ...(res.body.error as { code: string; message: string; details?: Record<string, unknown> }) };
}

// Project names: Apollo (alice), Gemini (bob), Mercury (alice); bob is assigned the Apollo API task.
const BY_PROJECT_DESC = [
  'Hand over the migrated ledger',
  'Kick-off meeting with Globex',
  'Survey sensor vendors',
  'Build the content API',
  'Design the new landing page',
  'Plan the launch',
];

for (const label of ['memory', ...DIALECTS] as const) {
  describe(`JSON-RPC sort through a relation (${label})`, function () {
    let ns: Namespace | undefined;
    let s: TestServer;
    before(async function () {
      if (label !== 'memory') {
        await requireDialect(this, label);
        ns = await openNamespace(label);
      }
      s = await startServer({ ...(ns ? { datasources: { default: ns.config() } } : {}), security: { allowBodyUser: true } });
    });
    after(async () => {
      await s?.stop();
      await ns?.drop();
    });

    it("sorts by the related record's field in the text and array forms", async () => {
      expect(await titles(s, '-project.name,title', USERS.carol)).to.deep.equal(BY_PROJECT_DESC);
      expect(
        await titles(
          s,
          [
            ['project.name', 'desc'],
            ['title', 'asc'],
          ],
          USERS.carol,
        ),
      ).to.deep.equal(BY_PROJECT_DESC);
      expect(await titles(s, [{ field: 'project.name', dir: 'desc' }, 'title'], USERS.carol, { top: 2, skip: 1 })).to.deep.equal(
        BY_PROJECT_DESC.slice(1, 3),
      );
    });

    it('sorts a related record outside the caller’s scope as null', async () => {
      // bob sees his three tasks; the Apollo project is alice's, so its name is null to him.
      expect(await titles(s, 'project.name,title', USERS.bob)).to.deep.equal([
        'Build the content API',
        'Kick-off meeting with Globex',
        'Survey sensor vendors',
      ]);
      expect(await titles(s, '-project.name,title', USERS.bob)).to.deep.equal([
        'Kick-off meeting with Globex',
        'Survey sensor vendors',
        'Build the content API',
      ]);
    });

    it('refuses a hidden or unknown field of the related object, naming field and object', async () => {
      const hidden = await refusal(s, { sort: '-project.actual_cost' }, USERS.bob);
      expect(hidden).to.include({ status: 400, code: 'INVALID_REQUEST' });
      expect(hidden.message).to.contain("'actual_cost'").and.contain("'project'");
      expect(hidden.details).to.include({ field: 'actual_cost', object: 'project' });
      const unknown = await refusal(s, { sort: 'project.nope' });
      expect(unknown.details).to.include({ field: 'nope', object: 'project' });
      // carol may read actual_cost: the same path sorts for her.
      expect(await titles(s, 'project.actual_cost', USERS.carol)).to.have.length(6);
    });

    it('refuses paths that are not one step through a relation to one record', async () => {
      for (const [sort, pattern] of [
        ['nothing.name', /unknown field 'nothing' on object 'task'/],
        ['title.name', /'title' to be a relation to one record/],
        ['project.account.name', /one field through one relation/],
        ['project.tags', /cannot sort by 'project.tags'/],
        ['project.', /one field through one relation/],
      ] as const) {
        const error = await refusal(s, { sort });
        expect(error, sort).to.include({ status: 400, code: 'INVALID_REQUEST' });
        expect(error.message, sort).to.match(pattern);
      }
    });

    it('pages the tasks of every project in one driver query (paging per group)', async () => {
      const ds = s.kernel.resolve('datasources').get('default');
      const find = ds.find.bind(ds);
      const queries: unknown[] = [];
      ds.find = (object: string, query: any, tx?: any) => {
        if (object === 'task') queries.push(query.perGroup);
        return find(object, query, tx);
      };
      try {
        const res = await s.rpc({
          op: 'find',
          object: 'project',
          args: { fields: ['name'], sort: 'name', expand: { tasks: { fields: ['title'], sort: '-estimate_hours', top: 2, skip: 1 } } },
          user: USERS.carol,
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const titlesOf = (p: any) => (p.tasks as Array<{ title: string }>).map((t) => t.title);
        expect(res.body.items.map(titlesOf)).to.deep.equal([
          ['Design the new landing page', 'Plan the launch'],
          ['Kick-off meeting with Globex'],
          [],
        ]);
        expect(queries).to.deep.equal([{ field: 'project', top: 2, skip: 1 }]);
      } finally {
        ds.find = find;
      }
    });

    it('keeps aggregate sorts to aliases and group fields', async () => {
      const error = await refusal(s, { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], sort: 'project.name' });
      expect(error).to.include({ status: 400, code: 'INVALID_REQUEST' });
    });
  });
}

/** A driver like memory that cannot sort through a relation in its store. */
class PlainDatasource extends MemoryDatasource {
  override readonly capabilities: DriverCapabilities = { transactions: true, aggregation: true, fullTextSearch: false };
}

function writeApp(dir: string): string {
  const meta = join(dir, 'meta');
  mkdirSync(meta, { recursive: true });
  const files: Record<string, string> = {
    'vault.object.yml': 'fields:\n  label: {type: text}\n',
    'vault.permission.yml': 'permissions:\n  - profile: manager\n    allow_read: true\n',
    'note.object.yml': 'fields:\n  text: {type: text}\n  vault: {type: lookup, reference_to: vault}\n',
    'box.object.yml': 'datasource: plain\nfields:\n  label: {type: text}\n',
    'crate.object.yml': 'datasource: plain\nfields:\n  box: {type: lookup, reference_to: box}\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(meta, name), text);
  return meta;
}

describe('JSON-RPC sort through a relation: permissions and capabilities', () => {
  let s: TestServer;
  const tmp = tempDir();
  before(async () => {
    s = await startServer(
      {
        metadata: [writeApp(tmp.dir)],
        datasources: { default: { driver: 'memory' }, plain: { driver: 'plain' } },
        security: { allowBodyUser: true },
      },
      { use: [{ name: 'plain-driver', register: (k) => k.registerDriver('plain', (name) => new PlainDatasource(name)) }] },
    );
  });
  after(async () => {
    await s?.stop();
    tmp.remove();
  });

  it('is FORBIDDEN when the caller may not read the related object', async () => {
    const error = await refusal(s, { sort: 'vault.label' }, USERS.bob, 'find', 'note');
    expect(error).to.include({ status: 403, code: 'FORBIDDEN' });
    expect(error.message).to.contain('vault');
    const ok = await s.rpc({ op: 'find', object: 'note', args: { sort: 'vault.label' }, user: USERS.carol });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
  });

  it('is refused on a datasource that cannot sort through a relation', async () => {
    const error = await refusal(s, { sort: '-box.label' }, USERS.carol, 'find', 'crate');
    expect(error).to.include({ status: 400, code: 'INVALID_REQUEST' });
    expect(error.message).to.equal("sort: datasource 'plain' of 'crate' cannot sort through a relation ('box.label')");
    const own = await s.rpc({ op: 'find', object: 'crate', args: { sort: '-box' }, user: USERS.carol });
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
  });
});
