import { expect } from 'chai';
import type { DbRecord } from '../../kernel/drivers';
import type { FieldDefinition, IndexDefinition, ObjectDefinition } from '../../kernel/metadata/types';
import type { SqlDatasource } from '../../drivers/sql';
import { describeDialects, type Namespace } from './sql/helpers';
import { field, objectDef } from './sql/objects';
import { rejection } from '../helpers/rejection';

const BOOK = 'sch_book';

function bookV1(): ObjectDefinition {
  return objectDef(
    BOOK,
    [
      field('title', 'text', { index: true }),
      field('isbn', 'text', { unique: true }),
      field('pages', 'number'),
      field('tags', 'select', { multiple: true }),
    ],
    [{ name: 'by_title_pages', fields: ['title', 'pages'], unique: false }],
  );
}

/** v1 grown: a new field with an index, a new composite unique index. */
function bookV2(): ObjectDefinition {
  const def = bookV1();
  def.fields.rating = field('rating', 'number', { index: true });
  def.fields.edition = field('edition', 'text');
  def.indexes = [...def.indexes, { name: 'title_edition', fields: ['title', 'edition'], unique: true }];
  return def;
}

async function open(ns: Namespace, objects: ObjectDefinition[]): Promise<SqlDatasource> {
  const ds = ns.make();
  await ds.connect();
  await ds.syncSchema(objects);
  return ds;
}

async function columns(ns: Namespace, ds: SqlDatasource, table: string): Promise<Record<string, string | undefined>> {
  const info = await ns.admin()(table).columnInfo();
  return Object.fromEntries(Object.entries(info).map(([name, col]) => [name, ds.dialect.columnFamily(col)]));
}

const ALL_TYPES: FieldDefinition[] = [
  field('t_text', 'text'),
  field('t_textarea', 'textarea'),
  field('t_email', 'email'),
  field('t_url', 'url'),
  field('t_phone', 'phone'),
  field('t_number', 'number'),
  field('t_currency', 'currency', { scale: 2 }),
  field('t_percent', 'percent'),
  field('t_auto', 'auto_number'),
  field('t_bool', 'boolean'),
  field('t_date', 'date'),
  field('t_datetime', 'datetime'),
  field('t_time', 'time'),
  field('t_time_ms', 'time'),
  field('t_select', 'select', { options: [{ label: 'A', value: 'a' }] }),
  field('t_lookup', 'lookup', { reference_to: BOOK }),
  field('t_master', 'master_detail', { reference_to: BOOK }),
  field('t_file', 'file'),
  field('t_image', 'image'),
  field('t_object', 'object'),
  field('t_json', 'json'),
  field('t_json_text', 'json'),
  field('t_json_list', 'json'),
  field('t_json_number', 'json'),
  field('t_multi_select', 'select', { multiple: true }),
  field('t_multi_lookup', 'lookup', { multiple: true, reference_to: BOOK }),
  field('t_multi_number', 'number', { multiple: true }),
  field('t_multi_date', 'date', { multiple: true }),
  field('t_long', 'text', { max_length: 2000 }),
];

const VALUES: DbRecord = {
  id: 'all-1',
  t_text: 'Grüße 😀 "quoted" \'single\' \\ back',
  t_textarea: 'line 1\nline 2\t'.repeat(200),
  t_email: 'a@example.com',
  t_url: 'https://example.com/a?b=c&d=%20',
  t_phone: '+1 (555) 010-0000',
  t_number: 1.5e-7,
  t_currency: 19.99,
  t_percent: 0.125,
  t_auto: 42,
  t_bool: false,
  t_date: '2024-02-29',
  t_datetime: '1999-12-31T23:59:59.999Z',
  t_time: '23:59:59',
  t_time_ms: '08:30:15.250',
  t_select: 'a',
  t_lookup: 'book-1',
  t_master: 'book-2',
  t_file: { name: 'a.pdf', size: 10, type: 'application/pdf', url: '/api/files/x' },
  t_image: { name: 'a.png', size: 10, type: 'image/png', url: '/api/files/y', width: 1, height: 2 },
  t_object: { nested: { list: [1, 'two', null, true] }, empty: {} },
  t_json: { a: [1, { b: null }] },
  t_json_text: 'just a string',
  t_json_list: [1, 2, [3]],
  t_json_number: 3.25,
  t_multi_select: ['x', 'y'],
  t_multi_lookup: ['book-1'],
  t_multi_number: [1, 2.5, -3],
  t_multi_date: ['2024-01-01', '2024-12-31'],
  t_long: 'x'.repeat(2000),
};

describeDialects('sql schema sync', (ns) => {
  it('creates tables, typed columns and the indexes metadata asks for', async () => {
    const ds = await open(ns(), [bookV1()]);
    try {
      expect(await columns(ns(), ds, BOOK)).to.deep.include({
        id: 'text',
        title: 'text',
        isbn: 'text',
        pages: 'number',
        tags: 'json',
        created_at: 'datetime',
      });
      const indexes = await ds.dialect.listIndexes(ns().admin(), BOOK);
      expect([...indexes]).to.include.members([`${BOOK}_title_index`, `${BOOK}_isbn_unique`, `${BOOK}_by_title_pages`]);
    } finally {
      await ds.disconnect();
    }
  });

  it('is idempotent and keeps data', async () => {
    const ds = await open(ns(), [bookV1()]);
    try {
      await ds.create(BOOK, { id: 'b1', title: 'Dune', isbn: '1', tags: ['sf'] });
      const before = await ds.dialect.listIndexes(ns().admin(), BOOK);
      await ds.syncSchema([bookV1()]);
      await ds.syncSchema([bookV1()]);
      expect(await ds.dialect.listIndexes(ns().admin(), BOOK)).to.deep.equal(before);
      expect(await ds.find(BOOK, {})).to.have.length(1);
    } finally {
      await ds.disconnect();
    }
  });

  it('adds new objects, fields and indexes without losing data', async () => {
    const first = await open(ns(), [bookV1()]);
    await first.create(BOOK, { id: 'b1', title: 'Dune', isbn: '1', pages: 412, tags: ['sf'] });
    await first.disconnect();

    const shelf = objectDef('sch_shelf', [field('label', 'text', { unique: true })]);
    const ds = await open(ns(), [bookV2(), shelf]);
    try {
      const [book] = await ds.find(BOOK, {});
      expect(book).to.deep.include({ id: 'b1', title: 'Dune', isbn: '1', pages: 412, tags: ['sf'], rating: null, edition: null });
      await ds.update(BOOK, 'b1', { rating: 4.5, edition: 'first' });
      expect((await ds.find(BOOK, { filter: { field: 'rating', op: 'gt', value: 4 } })).map((r) => r.id)).to.deep.equal(['b1']);
      expect([...(await ds.dialect.listIndexes(ns().admin(), BOOK))]).to.include.members([`${BOOK}_rating_index`, `${BOOK}_title_edition`]);
      const dup = await rejection(ds.create(BOOK, { id: 'b2', title: 'Dune', edition: 'first' }));
      expect(dup).to.have.property('code', 'CONFLICT');
      expect(dup.message).to.contain('title').and.contain('edition');
      await ds.create('sch_shelf', { label: 'top' });
      expect(await ds.count('sch_shelf', undefined)).to.equal(1);
    } finally {
      await ds.disconnect();
    }
  });

  it('refuses a type change it cannot apply, naming object, field, old and new type, and keeps the data', async () => {
    const first = await open(ns(), [bookV1()]);
    await first.create(BOOK, { id: 'b1', title: 'Dune', pages: 412 });
    await first.disconnect();

    const changed = bookV1();
    changed.fields.pages = field('pages', 'text');
    const ds = ns().make();
    await ds.connect();
    try {
      const error = await rejection(ds.syncSchema([changed]));
      expect(error.name).to.equal('PluginError');
      expect(error.message)
        .to.contain(`object '${BOOK}'`)
        .and.contain("field 'pages'")
        .and.contain('number values')
        .and.contain('now text');
      const multiple = bookV1();
      multiple.fields.title = field('title', 'text', { multiple: true, index: true });
      expect((await rejection(ds.syncSchema([multiple]))).message)
        .to.contain("field 'title'")
        .and.contain('text (multiple)');
      await ds.syncSchema([bookV1()]);
      expect((await ds.find(BOOK, {}))[0]).to.deep.include({ title: 'Dune', pages: 412 });
    } finally {
      await ds.disconnect();
    }
  });

  it('accepts changes the columns can hold (text to select or textarea; auto_number in a number column)', async () => {
    const first = await open(ns(), [bookV1()]);
    await first.create(BOOK, { id: 'b1', title: 'Dune', pages: 412 });
    await first.disconnect();
    const changed = bookV1();
    changed.fields.title = field('title', 'select', { index: true });
    changed.fields.isbn = field('isbn', 'textarea', { unique: true });
    changed.fields.pages = field('pages', 'auto_number');
    const ds = await open(ns(), [changed]);
    try {
      expect((await ds.find(BOOK, {}))[0]).to.deep.include({ title: 'Dune', pages: 412 });
    } finally {
      await ds.disconnect();
    }
  });

  it('refuses a unique index that stored duplicates prevent', async () => {
    const first = await open(ns(), [bookV1()]);
    await first.create(BOOK, { id: 'b1', title: 'Dune', pages: 1 });
    await first.create(BOOK, { id: 'b2', title: 'Dune', pages: 2 });
    await first.disconnect();
    const unique: IndexDefinition = { name: 'title_unique_now', fields: ['title'], unique: true };
    const changed = bookV1();
    changed.indexes = [...changed.indexes, unique];
    const ds = ns().make();
    await ds.connect();
    try {
      const error = await rejection(ds.syncSchema([changed]));
      expect(error.message).to.contain(`object '${BOOK}'`).and.contain('title').and.contain('duplicates');
      const [{ n }] = await ns().admin()(BOOK).count({ n: '*' });
      expect(Number(n)).to.equal(2);
    } finally {
      await ds.disconnect();
    }
  });

  it('round-trips every field type with the same JS types', async () => {
    const def = objectDef('sch_all', ALL_TYPES);
    const ds = await open(ns(), [def]);
    try {
      const created = await ds.create('sch_all', structuredClone(VALUES));
      expect(created).to.deep.equal(VALUES);
      const [found] = await ds.find('sch_all', { filter: { field: 'id', op: 'eq', value: 'all-1' } });
      const { created_at, created_by, updated_at, updated_by, ...stored } = found;
      expect([created_at, created_by, updated_at, updated_by]).to.deep.equal([null, null, null, null]);
      expect(stored).to.deep.equal(VALUES);
      expect(found.t_auto).to.be.a('number');
      expect(found.t_bool).to.equal(false);

      // The same values, as filter values and aggregate results.
      const hit = async (name: string, op: string, value: unknown) => await ds.count('sch_all', { field: name, op, value } as never);
      expect(await hit('t_datetime', 'eq', VALUES.t_datetime)).to.equal(1);
      expect(await hit('t_date', 'eq', VALUES.t_date)).to.equal(1);
      expect(await hit('t_time_ms', 'eq', VALUES.t_time_ms)).to.equal(1);
      expect(await hit('t_bool', 'eq', false)).to.equal(1);
      expect(await hit('t_multi_date', 'eq', '2024-12-31')).to.equal(1);
      expect(await hit('t_multi_number', 'in', [-3])).to.equal(1);
      expect(await hit('t_json_list', 'isnull', false)).to.equal(1);
      const [agg] = await ds.aggregate('sch_all', {
        aggregate: [
          { func: 'max', field: 't_datetime', alias: 'dt' },
          { func: 'min', field: 't_date', alias: 'd' },
          { func: 'max', field: 't_time_ms', alias: 't' },
          { func: 'max', field: 't_bool', alias: 'b' },
          { func: 'sum', field: 't_auto', alias: 'n' },
          { func: 'avg', field: 't_currency', alias: 'c' },
        ],
      });
      expect(agg).to.deep.equal({ dt: VALUES.t_datetime, d: VALUES.t_date, t: VALUES.t_time_ms, b: false, n: 42, c: 19.99 });
    } finally {
      await ds.disconnect();
    }
  });
});
