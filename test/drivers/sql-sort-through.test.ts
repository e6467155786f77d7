/**
 * Sort through a relation and paging per group in SQL, in the shapes the driver suite does not
 * reach: a relation to the same object (the related table under an alias of its own), a scope on
 * a multiple field (qualified JSON tests inside the subquery), a paging per group sorted through
 * such a relation; each answer equal to the memory driver's.
 */
import { expect } from 'chai';
import { MemoryDatasource } from '../../drivers/memory';
import type { Datasource, DbRecord } from '../../kernel/drivers';
import type { Query } from '../../kernel/query/ast';
import { describeDialects } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const NODE = 'st_node';
const DEF = objectDef(NODE, [
  field('name', 'text'),
  field('parent', 'lookup', { reference_to: NODE }),
  field('tags', 'select', { multiple: true }),
  field('kind', 'select'),
]);

const ROWS: DbRecord[] = [
  { id: 'n1', name: 'root b', parent: null, tags: ['public'], kind: 'dir' },
  { id: 'n2', name: 'root a', parent: null, tags: ['secret'], kind: 'dir' },
  { id: 'n3', name: 'leaf 1', parent: 'n1', tags: [], kind: 'file' },
  { id: 'n4', name: 'leaf 2', parent: 'n2', tags: null, kind: 'file' },
  { id: 'n5', name: 'leaf 3', parent: 'n1', tags: ['public'], kind: 'file' },
  { id: 'n6', name: 'leaf 4', parent: 'n3', tags: ['secret', 'public'], kind: 'file' },
];

const PUBLIC = { field: 'tags', op: 'eq' as const, value: 'public' };

const QUERIES: Array<[string, Query]> = [
  [
    'by the parent name ascending',
    {
      sort: [
        { field: 'parent', dir: 'asc', through: { object: NODE, field: 'name' } },
        { field: 'id', dir: 'asc' },
      ],
    },
  ],
  [
    'by the parent name descending, parents outside a scope on a multiple field as null',
    {
      sort: [
        { field: 'parent', dir: 'desc', through: { object: NODE, field: 'name', scope: PUBLIC } },
        { field: 'id', dir: 'asc' },
      ],
    },
  ],
  [
    'a scope negating a multiple-field test',
    {
      filter: { field: 'kind', op: 'eq', value: 'file' },
      sort: [
        {
          field: 'parent',
          dir: 'asc',
          through: { object: NODE, field: 'name', scope: { not: { field: 'tags', op: 'in', value: ['secret'] } } },
        },
        { field: 'id', dir: 'desc' },
      ],
      top: 3,
    },
  ],
  [
    'paging per kind, sorted through the parent',
    {
      sort: [{ field: 'parent', dir: 'desc', through: { object: NODE, field: 'name', scope: PUBLIC } }],
      perGroup: { field: 'kind', top: 2, skip: 1 },
      fields: ['name'],
    },
  ],
  ['paging per parent, unsorted', { perGroup: { field: 'parent', top: 1 }, fields: ['parent'] }],
];

describeDialects('sql: sort through a relation to the same object', (ns) => {
  let sql: Datasource;
  let memory: Datasource;
  beforeEach(async () => {
    sql = ns().make();
    memory = new MemoryDatasource('default');
    for (const ds of [sql, memory]) {
      await ds.connect();
      await ds.syncSchema([DEF]);
      for (const row of ROWS) await ds.create(NODE, structuredClone(row));
    }
  });
  afterEach(() => sql.disconnect());

  for (const [title, query] of QUERIES) {
    it(`answers as the memory driver: ${title}`, async () => {
      // Named fields: a SQL row has every column, the memory driver only the fields it was given.
      const asked = { fields: ['name', 'parent', 'tags', 'kind'], ...query };
      const expected = await memory.find(NODE, asked);
      expect(expected.length, 'the memory driver answers something').to.be.greaterThan(0);
      expect(await sql.find(NODE, asked)).to.deep.equal(expected);
    });
  }

  it('sorts a child by its parent and keeps the ids of its own rows', async () => {
    const rows = await sql.find(NODE, { ...QUERIES[1][1], fields: ['parent'] });
    expect(rows.map((r) => r.id)).to.deep.equal(['n3', 'n5', 'n1', 'n2', 'n4', 'n6']);
  });
});
