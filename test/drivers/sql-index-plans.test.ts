/**
 * The driver's page queries are ones the engine's own indexes can serve: a filtered list sorted on
 * an indexed column, in either direction, and paging by id, read the index in order instead of
 * sorting. Checked on each engine's query plan (EXPLAIN) of the SQL the driver actually sent.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Query } from '../../kernel/query/ast';
import type { SqlDatasource } from '../../drivers/sql';
import { describeDialects, type DialectLabel, type Namespace } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const ITEM = 'plan_item';
const ROWS = 3000;

async function openWithRows(ns: Namespace): Promise<SqlDatasource> {
  const ds = ns.make();
  await ds.connect();
  await ds.syncSchema([
    objectDef(
      ITEM,
      [field('status', 'select', { index: true }), field('amount', 'number')],
      [{ name: 'plan_item_status_amount', fields: ['status', 'amount'], unique: false }],
    ),
  ]);
  await ds.transaction(async (tx) => {
    for (let i = 0; i < ROWS; i++) {
      await ds.create(
        ITEM,
        { id: `i${String(i).padStart(5, '0')}`, status: ['open', 'closed', 'archived'][i % 3], amount: i % 2 ? (i * 37) % 1000 : null },
        tx,
      );
    }
  });
  const admin = ns.admin();
  await admin.raw(ns.label === 'mysql' ? 'ANALYZE TABLE ??' : 'ANALYZE ??', [ITEM]);
  return ds;
}

/** The SQL and bindings of the SELECT the driver runs for this query. */
async function capturedSelect(ds: SqlDatasource, query: Query): Promise<{ sql: string; bindings: readonly unknown[] }> {
  const knex = (ds as unknown as { knex: Knex }).knex;
  const seen: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  const listener = (q: { sql: string; bindings?: readonly unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  knex.on('query', listener);
  try {
    await ds.find(ITEM, query);
  } finally {
    knex.removeListener('query', listener);
  }
  const select = seen.find((q) => /^select/i.test(q.sql));
  if (!select) throw new Error('the driver sent no SELECT');
  return select;
}

/** Whether the engine must sort the result itself rather than read it in index order. */
async function sortsItself(
  label: DialectLabel,
  admin: Knex,
  statement: { sql: string; bindings: readonly unknown[] },
): Promise<{ sorts: boolean; plan: string }> {
  const bindings = statement.bindings as Knex.RawBinding[];
  if (label === 'postgres') {
    // With sorting priced out, a Sort node remains only where no index gives the order.
    const plan = await admin.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_sort = off');
      // The query event carries pg's native $n placeholders; knex.raw takes ?.
      const result = await trx.raw(`EXPLAIN ${statement.sql.replace(/\$\d+/g, '?')}`, bindings);
      return (result.rows as Array<Record<string, string>>).map((r) => r['QUERY PLAN']).join('\n');
    });
    return { sorts: /\bSort\b/.test(plan), plan };
  }
  if (label === 'sqlite') {
    const rows = await admin.raw<Array<{ detail: string }>>(`EXPLAIN QUERY PLAN ${statement.sql}`, bindings);
    const plan = rows.map((r) => r.detail).join('\n');
    return { sorts: /TEMP B-TREE FOR ORDER BY/.test(plan), plan };
  }
  const [rows] = (await admin.raw(`EXPLAIN ${statement.sql}`, bindings)) as [Array<{ Extra: string | null; key: string | null }>];
  const plan = rows.map((r) => `${r.key} ${r.Extra ?? ''}`).join('\n');
  return { sorts: /filesort/.test(plan), plan };
}

describeDialects('sql driver: indexes serve sorted pages', (ns, label) => {
  const cases: Array<[string, Query]> = [
    [
      'filtered on the index prefix, sorted descending on its next column',
      {
        filter: {
          and: [
            { field: 'status', op: 'eq', value: 'open' },
            { field: 'amount', op: 'gt', value: 500 },
          ],
        },
        sort: [{ field: 'amount', dir: 'desc' }],
        top: 20,
      },
    ],
    [
      'filtered on the index prefix, sorted ascending on its next column',
      { filter: { field: 'status', op: 'eq', value: 'closed' }, sort: [{ field: 'amount', dir: 'asc' }], top: 20 },
    ],
    ['paged by id (keyset)', { filter: { field: 'id', op: 'gt', value: 'i01000' }, sort: [{ field: 'id', dir: 'asc' }], top: 100 }],
    ['sorted on a single-column index', { sort: [{ field: 'status', dir: 'desc' }], top: 10 }],
  ];
  for (const [title, query] of cases) {
    it(title, async () => {
      const ds = await openWithRows(ns());
      try {
        const statement = await capturedSelect(ds, query);
        const { sorts, plan } = await sortsItself(label, ns().admin(), statement);
        expect(sorts, `${statement.sql}\n${plan}`).to.equal(false);
      } finally {
        await ds.disconnect();
      }
    });
  }

  it('still sorts nulls first ascending and last descending', async () => {
    const ds = await openWithRows(ns());
    try {
      const filter = { field: 'status', op: 'eq', value: 'open' } as const;
      const asc = await ds.find(ITEM, { filter, sort: [{ field: 'amount', dir: 'asc' }], top: 3 });
      const desc = await ds.find(ITEM, { filter, sort: [{ field: 'amount', dir: 'desc' }], skip: ROWS / 3 - 3, top: 3 });
      expect(asc.map((r) => r.amount)).to.deep.equal([null, null, null]);
      expect(desc.map((r) => r.amount)).to.deep.equal([null, null, null]);
    } finally {
      await ds.disconnect();
    }
  });
});
