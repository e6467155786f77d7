/**
 * The sample application served from each SQL engine, end to end over JSON-RPC, answers exactly
 * as it does from the memory driver: seeds, permissions, expand, aggregation, hooks writing in
 * the same transaction, conflicts. On the server engines, terminating the service's connections
 * gives at most a DATABASE_ERROR response (no store text), then it serves again.
 */
import { expect } from 'chai';
import { USERS, startServer, type TestServer } from '../helpers/server';
import { DIALECTS, openNamespace, requireDialect, type Namespace } from './sql/helpers';

type Step = [title: string, op: string, object: string, args: unknown, user?: { id: string; roles: string[] }];

const STEPS: Step[] = [
  ['list projects', 'find', 'project', { fields: ['name', 'status', 'budget', 'code', 'tags', 'settings', 'start_date'], sort: 'name' }],
  [
    'filter by substring, sort descending',
    'find',
    'project',
    { filters: [['name', 'contains', 'O']], sort: '-budget', fields: ['name', 'budget'] },
  ],
  ['membership on a multiple field', 'find', 'project', { filters: [['tags', '=', 'research']], fields: ['name'], sort: 'name' }],
  ['scoped to the member', 'find', 'project', { fields: ['name', 'budget'], sort: 'name' }, USERS.alice],
  ['expand', 'find', 'task', { fields: ['title', 'project'], expand: { project: { fields: ['name'] } }, sort: 'title' }],
  [
    'group by',
    'find',
    'expense',
    {
      groupBy: ['project'],
      aggregate: [
        { func: 'sum', field: 'amount', alias: 'total' },
        { func: 'count', alias: 'n' },
      ],
      sort: '-total',
    },
  ],
  ['count', 'count', 'contact', {}],
  [
    'create with a hook writing in the same transaction',
    'create',
    'expense',
    { id: 'exp-sql-1', project: 'prj-gemini', amount: 12.5, category: 'travel', spent_on: '2025-06-02' },
  ],
  ['the hook wrote', 'findOne', 'project', { filters: { id: 'prj-gemini' }, fields: ['actual_cost'] }],
  ['conflict', 'create', 'project', { name: 'Apollo Website Relaunch', status: 'planning' }],
  ['update', 'update', 'project', { id: 'prj-gemini', data: { budget: 50000, tags: ['research'] } }],
  ['delete', 'delete', 'expense', { id: 'exp-sql-1' }],
  ['the hook wrote again', 'findOne', 'project', { filters: { id: 'prj-gemini' }, fields: ['actual_cost', 'budget', 'tags'] }],
  ['paging', 'find', 'task', { fields: ['title'], sort: 'title', top: 2, skip: 1 }],
];

/**
 * Drops what differs by nature: timestamps, and null fields (a SQL row has every column, null
 * when never written; the memory driver leaves a field it was never given out).
 */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k, v]) => k !== 'created_at' && k !== 'updated_at' && v !== null)
        .map(([k, v]) => [k, normalize(v)]),
    );
  }
  return value;
}

for (const label of DIALECTS) {
  describe(`sample application on sql (${label})`, function () {
    let ns: Namespace | undefined;
    let sql: TestServer;
    let memory: TestServer;
    before(async function () {
      await requireDialect(this, label);
      ns = await openNamespace(label);
      sql = await startServer({ datasources: { default: ns.config() }, security: { allowBodyUser: true } });
      memory = await startServer({ security: { allowBodyUser: true } });
    });
    after(async () => {
      await sql?.stop();
      await memory?.stop();
      await ns?.drop();
    });

    it('answers every call as the memory driver does', async () => {
      for (const [title, op, object, args, user = USERS.carol] of STEPS) {
        const [a, b] = [await sql.rpc({ op, object, args, user }), await memory.rpc({ op, object, args, user })];
        expect(b.status, `${title} (memory): ${JSON.stringify(b.body)}`).to.equal(op === 'create' && object === 'project' ? 409 : 200);
        expect(a.status, `${title}: ${JSON.stringify(a.body)}`).to.equal(b.status);
        expect(normalize(a.body), title).to.deep.equal(normalize(b.body));
      }
    });

    if (label !== 'sqlite') {
      it('answers DATABASE_ERROR or SERVICE_UNAVAILABLE, not a crash, when its connections are cut, then serves again', async () => {
        const find = () => sql.rpc({ op: 'find', object: 'project', args: { fields: ['name'] }, user: USERS.carol });
        expect((await find()).status).to.equal(200);
        const admin = ns!.admin();
        if (label === 'postgres') {
          await admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()', [
            ns!.where,
          ]);
        } else {
          const [rows] = await admin.raw('SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()', [
            ns!.where,
          ]);
          for (const row of rows as Array<{ id: number }>) await admin.raw(`KILL ${Number(row.id)}`);
        }
        const write = await sql.rpc({
          op: 'update',
          object: 'project',
          args: { id: 'prj-gemini', data: { budget: 1 } },
          user: USERS.admin,
        });
        // The write may take a connection that was cut: SERVICE_UNAVAILABLE when the driver's error says
        // so (pg's 57P01, a reset socket), DATABASE_ERROR otherwise; never the driver's own text.
        if (write.status !== 200) {
          const expected = write.status === 503 ? 'SERVICE_UNAVAILABLE' : 'DATABASE_ERROR';
          expect(write.status, JSON.stringify(write.body)).to.be.oneOf([500, 503]);
          expect(write.body.error.code).to.equal(expected);
          expect(JSON.stringify(write.body)).not.to.match(/select|update|insert|terminat/i);
        }
        for (let i = 0; i < 3; i++) expect((await find()).status).to.equal(200);
        expect(
          (await sql.rpc({ op: 'update', object: 'project', args: { id: 'prj-gemini', data: { budget: 2 } }, user: USERS.admin })).status,
        ).to.equal(200);
      });
    }
  });
}
