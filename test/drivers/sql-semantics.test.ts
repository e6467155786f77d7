/**
 * The SQL driver against the reference semantics: the same records in the memory driver (which
 * filters with kernel/query/evaluate.ts) and in each SQL engine must give the same answers for
 * every filter (and its negation), sort and aggregate below. The records are chosen for the hard
 * cases: non-ASCII case folding, LIKE wildcards and backslashes in the data, trailing spaces,
 * empty strings, nulls everywhere, empty arrays.
 */
import { expect } from 'chai';
import { MemoryDatasource } from '../../drivers/memory';
import type { Datasource, DbRecord } from '../../kernel/drivers';
import type { AggregateQuery, Filter, SortKey } from '../../kernel/query/ast';
import type { SqlDatasource } from '../../drivers/sql';
import { describeDialects } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const OBJ = 'sem_item';
const DEF = objectDef(OBJ, [
  field('name', 'text'),
  field('note', 'textarea'),
  field('qty', 'number'),
  field('other', 'number'),
  field('flag', 'boolean'),
  field('day', 'date'),
  field('at', 'datetime'),
  field('tm', 'time'),
  field('tags', 'select', { multiple: true }),
  field('nums', 'number', { multiple: true }),
  field('meta', 'json'),
  field('status', 'select'),
]);

const ROWS: DbRecord[] = [
  {
    id: 'r01',
    name: 'Äpfel',
    note: 'x',
    qty: 1,
    other: 1,
    flag: true,
    day: '2024-01-01',
    at: '2024-01-01T00:00:00.000Z',
    tm: '08:00:00',
    tags: ['a', 'B'],
    nums: [1, 2],
    meta: { a: 1 },
    status: 'x',
  },
  {
    id: 'r02',
    name: 'äpfel',
    note: 'ÄP',
    qty: -1.5,
    other: 2,
    flag: false,
    day: '2023-12-31',
    at: '2023-12-31T23:59:59.999Z',
    tm: '23:59:59',
    tags: ['b'],
    nums: [2.5],
    meta: [],
    status: 'y',
  },
  {
    id: 'r03',
    name: 'ÄPFEL und Birnen',
    note: 'BIRNEN',
    qty: 0,
    other: null,
    flag: null,
    day: null,
    at: '2024-06-01T12:00:00.123Z',
    tm: '00:00:00',
    tags: [],
    nums: [],
    meta: null,
    status: null,
  },
  {
    id: 'r04',
    name: 'back\\slash',
    qty: null,
    other: 0,
    flag: true,
    day: '2024-02-29',
    at: null,
    tm: null,
    tags: null,
    nums: null,
    meta: { b: [1] },
    status: 'x',
  },
  {
    id: 'r05',
    name: 'ends with \\',
    qty: 2,
    other: 2,
    flag: false,
    day: '2024-01-01',
    at: '2024-01-01T00:00:00.001Z',
    tm: '08:00:00.500',
    tags: ['A'],
    nums: [0],
    meta: 'text',
    status: 'y',
  },
  { id: 'r06', name: '50%_off', note: '%_', qty: 3, other: 1, status: 'z' },
  { id: 'r07', name: '50% off', note: 'OFF', qty: 3, other: 4, tags: ['b', 'c'] },
  { id: 'r08', name: 'under_score', qty: 10, other: 10, flag: true },
  { id: 'r09', name: 'trailing ', qty: 100, other: null },
  { id: 'r10', name: 'trailing', qty: -100 },
  { id: 'r11', name: '', qty: 0.5 },
  { id: 'r12', name: 'Zebra', note: 'Zebra', status: 'x' },
  { id: 'r13', name: 'zebra', note: 'Zebra', status: 'x' },
  { id: 'r14', name: null, qty: 7 },
  { id: 'r15', name: 'Ωmega ÉCOLE', qty: 7 },
  { id: 'r16', name: 'école', qty: 8 },
  { id: 'r17', name: 'Москва', note: 'ква', qty: 9 },
];

const c = (f: string, op: string, value: unknown): Filter => ({ field: f, op, value }) as Filter;
const ref = (f: string, op: string, other: string): Filter => ({ field: f, op, ref: other }) as Filter;

const FILTERS: Filter[] = [
  // text comparisons: exact, by code point
  c('name', 'eq', 'Äpfel'),
  c('name', 'eq', 'trailing'),
  c('name', 'eq', ''),
  c('name', 'ne', 'Äpfel'),
  c('name', 'gt', 'Z'),
  c('name', 'lt', 'a'),
  c('name', 'ge', 'zebra'),
  c('name', 'le', ''),
  c('name', 'in', ['zebra', 'Äpfel', 'nope']),
  c('name', 'nin', ['zebra', 'Äpfel']),
  c('name', 'between', ['A', 'a']),
  c('name', 'isnull', true),
  c('name', 'isnull', false),
  // like: wildcards, escapes, case folding
  c('name', 'like', 'äpfel'),
  c('name', 'like', 'ÄPFEL%'),
  c('name', 'like', '%\\\\%'),
  c('name', 'like', 'ends with \\'),
  c('name', 'like', 'ends with \\\\'),
  c('name', 'like', '50\\%%'),
  c('name', 'like', '50\\%\\_off'),
  c('name', 'like', '%\\_%'),
  c('name', 'like', '_pfel'),
  c('name', 'like', '%'),
  c('name', 'like', ''),
  c('name', 'like', 'TRAILING_'),
  c('name', 'like', '%école%'),
  c('name', 'like', '\\a%'),
  // substring operators take their value literally
  c('name', 'contains', 'PFEL'),
  c('name', 'contains', '%'),
  c('name', 'contains', '_'),
  c('name', 'contains', '\\'),
  c('name', 'contains', ' '),
  c('name', 'contains', 'ÉCOLE'),
  c('name', 'contains', 'ω'),
  c('name', 'contains', ''),
  c('name', 'contains', 'МОСК'),
  c('name', 'like', '%ВА'),
  c('name', 'startswith', 'мос'),
  c('name', 'startswith', 'äp'),
  c('name', 'startswith', '50%'),
  c('name', 'startswith', 'ENDS'),
  c('name', 'endswith', '\\'),
  c('name', 'endswith', 'OFF'),
  c('name', 'endswith', 'e'),
  // numbers
  c('qty', 'eq', 0),
  c('qty', 'ne', 0),
  c('qty', 'gt', -1.5),
  c('qty', 'lt', 0),
  c('qty', 'ge', 0),
  c('qty', 'le', 1),
  c('qty', 'in', [0, 1, 3]),
  c('qty', 'nin', [0, 3]),
  c('qty', 'between', [-1.5, 0.5]),
  c('qty', 'isnull', true),
  c('qty', 'in', []),
  c('qty', 'nin', []),
  // field references
  ref('qty', 'eq', 'other'),
  ref('qty', 'ne', 'other'),
  ref('qty', 'gt', 'other'),
  ref('qty', 'lt', 'other'),
  ref('qty', 'ge', 'other'),
  ref('qty', 'le', 'other'),
  ref('name', 'eq', 'note'),
  ref('name', 'ne', 'note'),
  ref('name', 'gt', 'note'),
  ref('name', 'contains', 'note'),
  ref('name', 'startswith', 'note'),
  ref('name', 'endswith', 'note'),
  ref('name', 'contains', 'status'),
  // booleans, dates, datetimes, times
  c('flag', 'eq', true),
  c('flag', 'eq', false),
  c('flag', 'ne', true),
  c('flag', 'ne', false),
  c('flag', 'isnull', true),
  c('day', 'eq', '2024-01-01'),
  c('day', 'gt', '2024-01-01'),
  c('day', 'between', ['2023-12-31', '2024-01-01']),
  c('day', 'ne', '2024-01-01'),
  c('at', 'lt', '2024-01-01T00:00:00.000Z'),
  c('at', 'ge', '2024-01-01T00:00:00.000Z'),
  c('at', 'eq', '2024-06-01T12:00:00.123Z'),
  c('at', 'between', ['2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.001Z']),
  c('tm', 'gt', '08:00:00'),
  c('tm', 'le', '08:00:00'),
  c('tm', 'eq', '08:00:00.500'),
  // multiple fields: membership, case-sensitive
  c('tags', 'eq', 'b'),
  c('tags', 'eq', 'B'),
  c('tags', 'in', ['a', 'b']),
  c('tags', 'ne', 'b'),
  c('tags', 'nin', ['a', 'c']),
  c('tags', 'isnull', true),
  c('tags', 'isnull', false),
  c('nums', 'eq', 2),
  c('nums', 'eq', 2.5),
  c('nums', 'in', [1, 2.5]),
  c('nums', 'ne', 2),
  c('nums', 'nin', [0, 1]),
  c('nums', 'isnull', true),
  // json: null and [] are null
  c('meta', 'isnull', true),
  c('meta', 'isnull', false),
  // select
  c('status', 'eq', 'x'),
  c('status', 'ne', 'x'),
  c('status', 'nin', ['x', 'y']),
  // combinations
  { and: [c('status', 'eq', 'x'), { not: c('qty', 'lt', 1) }] },
  { or: [c('tags', 'eq', 'b'), { and: [c('flag', 'eq', true), c('name', 'contains', 'a')] }] },
  { not: { or: [c('qty', 'gt', 5), c('name', 'like', '%e%')] } },
  { and: [] },
  { or: [] },
];

const SORTS: SortKey[][] = ['name', 'qty', 'flag', 'day', 'at', 'tm', 'status'].flatMap((f) => [
  [
    { field: f, dir: 'asc' as const },
    { field: 'id', dir: 'asc' as const },
  ],
  [
    { field: f, dir: 'desc' as const },
    { field: 'id', dir: 'desc' as const },
  ],
]);

const AGGREGATES: AggregateQuery[] = [
  {
    groupBy: ['status'],
    aggregate: [
      { func: 'count', alias: 'n' },
      { func: 'min', field: 'name', alias: 'first' },
      { func: 'max', field: 'name', alias: 'last' },
      { func: 'sum', field: 'qty', alias: 'total' },
      { func: 'avg', field: 'qty', alias: 'mean' },
    ],
    sort: [{ field: 'status', dir: 'desc' }],
  },
  {
    groupBy: ['flag'],
    aggregate: [
      { func: 'count', field: 'qty', alias: 'n' },
      { func: 'max', field: 'at', alias: 'latest' },
    ],
    sort: [{ field: 'flag', dir: 'asc' }],
  },
  {
    groupBy: ['flag', 'status'],
    aggregate: [{ func: 'min', field: 'qty', alias: 'low' }],
    sort: [
      { field: 'low', dir: 'desc' },
      { field: 'flag', dir: 'asc' },
      { field: 'status', dir: 'asc' },
    ],
    skip: 1,
    top: 4,
  },
  {
    aggregate: [
      { func: 'min', field: 'day', alias: 'd0' },
      { func: 'max', field: 'day', alias: 'd1' },
      { func: 'min', field: 'at', alias: 't0' },
      { func: 'max', field: 'tm', alias: 'tm1' },
      { func: 'min', field: 'flag', alias: 'f0' },
      { func: 'max', field: 'flag', alias: 'f1' },
      { func: 'count', field: 'tags', alias: 'tagged' },
      { func: 'sum', field: 'other', alias: 'others' },
    ],
  },
  { groupBy: ['day'], aggregate: [], sort: [{ field: 'day', dir: 'asc' }] },
  {
    filter: c('qty', 'gt', 1000),
    aggregate: [
      { func: 'count', alias: 'n' },
      { func: 'max', field: 'name', alias: 'm' },
      { func: 'min', field: 'flag', alias: 'f' },
    ],
  },
];

/** Numbers within rounding (avg), everything else exactly. */
function expectSameRows(actual: DbRecord[], expected: DbRecord[], label: string): void {
  expect(actual.length, label).to.equal(expected.length);
  expected.forEach((row, i) => {
    expect(Object.keys(actual[i]).sort(), label).to.deep.equal(Object.keys(row).sort());
    for (const [key, value] of Object.entries(row)) {
      if (typeof value === 'number') expect(actual[i][key], `${label}: ${key} of row ${i}`).to.be.a('number').closeTo(value, 1e-9);
      else expect(actual[i][key], `${label}: ${key} of row ${i}`).to.deep.equal(value);
    }
  });
}

describeDialects('sql driver semantics match evaluate.ts', (ns) => {
  let sql: SqlDatasource;
  let memory: Datasource;

  beforeEach(async () => {
    sql = ns().make();
    await sql.connect();
    await sql.syncSchema([DEF]);
    memory = new MemoryDatasource('default');
    await memory.syncSchema([DEF]);
    for (const row of ROWS) {
      await sql.create(OBJ, structuredClone(row));
      await memory.create(OBJ, structuredClone(row));
    }
  });
  afterEach(() => sql.disconnect());

  const ids = async (ds: Datasource, filter: Filter) => (await ds.find(OBJ, { filter, fields: ['id'] })).map((r) => String(r.id)).sort();

  it('filters like the memory driver, and negates exactly', async () => {
    const failures: string[] = [];
    for (const filter of FILTERS) {
      for (const f of [filter, { not: filter }]) {
        const [got, want] = [await ids(sql, f), await ids(memory, f)];
        if (JSON.stringify(got) !== JSON.stringify(want))
          failures.push(`${JSON.stringify(f)}: got ${got.join(',')} want ${want.join(',')}`);
        const count = await sql.count(OBJ, f);
        if (count !== want.length) failures.push(`count ${JSON.stringify(f)}: got ${count} want ${want.length}`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('takes long lists (more values than an engine binds parameters)', async () => {
    const many = (n: number, extra: unknown[]) => [...Array.from({ length: n }, (_, i) => `no-${i}`), ...extra];
    const numbers = [...Array.from({ length: 70000 }, (_, i) => 1000 + i), 0, 3];
    const filters: Filter[] = [
      c('name', 'in', many(70000, ['Zebra', 'école'])),
      c('name', 'nin', many(70000, ['Zebra'])),
      c('qty', 'in', numbers),
      c('qty', 'nin', numbers),
      c('id', 'in', many(2000, ['r01', 'r16'])),
      c('flag', 'in', [true, ...Array.from({ length: 1500 }, () => true)]),
      c('tags', 'in', many(60, ['B', 'c'])),
      c('tags', 'nin', many(60, ['b'])),
      c('nums', 'in', [...numbers.slice(0, 100), 2.5]),
    ];
    for (const filter of filters) {
      for (const f of [filter, { not: filter }]) {
        expect(await ids(sql, f), JSON.stringify(f).slice(0, 80)).to.deep.equal(await ids(memory, f));
      }
    }
  });

  it('sorts like the memory driver (nulls first ascending, last descending; by code point)', async () => {
    for (const sort of SORTS) {
      const order = async (ds: Datasource) => (await ds.find(OBJ, { sort, fields: ['id'] })).map((r) => r.id);
      expect(await order(sql), JSON.stringify(sort)).to.deep.equal(await order(memory));
    }
  });

  it('pages like the memory driver', async () => {
    const sort: SortKey[] = [
      { field: 'qty', dir: 'desc' },
      { field: 'id', dir: 'asc' },
    ];
    for (const [skip, top] of [
      [0, 5],
      [5, 5],
      [14, 5],
      [20, 3],
      [3, 0],
    ]) {
      const page = async (ds: Datasource) => (await ds.find(OBJ, { sort, skip, top, fields: ['id'] })).map((r) => r.id);
      expect(await page(sql), `skip ${skip} top ${top}`).to.deep.equal(await page(memory));
    }
  });

  it('aggregates like the memory driver', async () => {
    for (const query of AGGREGATES) {
      expectSameRows(await sql.aggregate(OBJ, query), await memory.aggregate(OBJ, query), JSON.stringify(query));
    }
  });

  it('reads every record back as the memory driver does (absent fields as null)', async () => {
    const all = await sql.find(OBJ, { sort: [{ field: 'id', dir: 'asc' }] });
    const reference = await memory.find(OBJ, { sort: [{ field: 'id', dir: 'asc' }] });
    all.forEach((record, i) => {
      for (const [key, value] of Object.entries(record)) {
        if (key in reference[i]) expect(value, `${String(record.id)}.${key}`).to.deep.equal(reference[i][key]);
        else expect(value, `${String(record.id)}.${key}`).to.equal(null);
      }
    });
  });
});
