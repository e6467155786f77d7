/**
 * Schema migrations (drivers/sql/migrate/, docs/migrations.md) on real databases holding real
 * records: the plan's exact steps, renames keeping values, type changes converting them or refusing
 * the rows that do not convert, backfills, dropped fields kept unless allowed, migration files
 * replayed on a fresh database and refused once edited, and `schemaSync: 'off'` at start-up.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { createSqlDatasource, type SqlDatasource } from '../../drivers/sql';
import { applyFiles, describeStep, isDestructive, migrateDatasource, planDatasource, writePlan } from '../../drivers/sql/migrate';
import type { FieldDefinition, ObjectDefinition } from '../../kernel/metadata/types';
import { describeDialects, openNamespace, tempDir, type Namespace } from './sql/helpers';
import { field, objectDef } from './sql/objects';
import { rejection } from '../helpers/rejection';

const refusal = async (promise: Promise<unknown>): Promise<string> => (await rejection(promise)).message;

const ITEM = 'mig_item';

function item(...fields: FieldDefinition[]): ObjectDefinition {
  return objectDef(ITEM, fields);
}

const V1 = () => item(field('title', 'text'), field('qty', 'text'), field('note', 'text'));

async function open(ns: Namespace, objects: ObjectDefinition[], extra: Record<string, unknown> = {}): Promise<SqlDatasource> {
  const ds = createSqlDatasource('default', { ...ns.config(), ...extra }, { baseDir: process.cwd() });
  await ds.connect();
  try {
    await ds.syncSchema(objects);
  } catch (err) {
    await ds.disconnect();
    throw err;
  }
  return ds;
}

/** v1's table with three records. */
async function seeded(ns: Namespace): Promise<SqlDatasource> {
  const ds = await open(ns, [V1()]);
  await ds.create(ITEM, { id: 'a', title: 'Apple', qty: '12', note: 'n1' });
  await ds.create(ITEM, { id: 'b', title: 'Pear', qty: ' 3.5 ', note: 'n2' });
  await ds.create(ITEM, { id: 'c', title: 'Plum', qty: null, note: null });
  return ds;
}

async function rows(ns: Namespace, ...columns: string[]): Promise<Array<Record<string, unknown>>> {
  return ns.admin()(ITEM).select(columns).orderBy('id');
}

describeDialects('sql schema migrations', (ns) => {
  let ds: SqlDatasource | undefined;
  afterEach(async () => {
    await ds?.disconnect();
    ds = undefined;
  });

  it('plans exactly the steps between the tables and the metadata, each marked safe or destructive', async () => {
    ds = await seeded(ns());
    const v2 = item(
      field('name', 'text', { renamed_from: 'title', index: true }),
      field('qty', 'number'),
      field('priority', 'text', { required: true }),
    );
    const steps = await planDatasource(ds, [v2, objectDef('mig_other', [field('label', 'text')])]);
    expect(steps.map((s) => `${isDestructive(s) ? 'destructive' : 'safe'}: ${describeStep(s)}`)).to.deep.equal([
      "safe: create table 'mig_other' (5 columns)",
      "safe: rename column 'mig_item.title' to 'name' (renamed_from), keeping its values",
      "safe: add column 'mig_item.priority' (text)",
      `destructive: change the type of 'mig_item.qty' from ${steps[3].kind === 'change_type' ? steps[3].from : ''} to number (values converted; some may lose precision or form)`,
      "safe: backfill required field 'mig_item.priority': 3 record(s) hold no value (needs --backfill mig_item.priority=VALUE)",
      "destructive: drop column 'mig_item.note': no field maps to it (its values are lost)",
      "safe: create index 'mig_item_name_index' on 'mig_item' (name)",
    ]);
    expect(await planDatasource(ds, [V1()])).to.deep.equal([]);
  });

  it('renames a column declared renamed_from, keeping its values', async () => {
    ds = await seeded(ns());
    const v2 = item(field('name', 'text', { renamed_from: 'title' }), field('qty', 'text'), field('note', 'text'));
    const { report } = await migrateDatasource(ds, [v2]);
    expect(report.applied).to.have.length(1);
    expect(await rows(ns(), 'id', 'name')).to.deep.equal([
      { id: 'a', name: 'Apple' },
      { id: 'b', name: 'Pear' },
      { id: 'c', name: 'Plum' },
    ]);
    expect(await ns().admin()(ITEM).columnInfo()).not.to.have.property('title');
    expect(await planDatasource(ds, [v2])).to.deep.equal([]);
  });

  it('start-up sync renames a renamed_from column too, instead of adding an empty one', async () => {
    await (await seeded(ns())).disconnect();
    ds = await open(ns(), [item(field('name', 'text', { renamed_from: 'title' }), field('qty', 'text'), field('note', 'text'))]);
    expect((await ds.find(ITEM, { sort: [{ field: 'id', dir: 'asc' }] })).map((r) => r.name)).to.deep.equal(['Apple', 'Pear', 'Plum']);
  });

  it('converts text holding numbers to a number column, and refuses naming the rows that do not convert', async () => {
    ds = await seeded(ns());
    const v2 = item(field('title', 'text'), field('qty', 'number'), field('note', 'text'));
    expect(await refusal(migrateDatasource(ds, [v2]))).to.match(/destructive step\(s\) need --allow-destructive[\s\S]*mig_item\.qty/);
    await ns().admin()(ITEM).insert({ id: 'd', title: 'Fig', qty: 'a dozen' });
    const refused = await refusal(migrateDatasource(ds, [v2], { allowDestructive: true }));
    expect(refused).to.include("1 record(s) of 'mig_item.qty' do not convert to number");
    expect(refused).to.include('id "d": "a dozen" is not a number');
    expect((await rows(ns(), 'id', 'qty')).map((r) => r.qty)).to.deep.equal(['12', ' 3.5 ', null, 'a dozen']);

    await ns().admin()(ITEM).where({ id: 'd' }).update({ qty: '7' });
    await migrateDatasource(ds, [v2], { allowDestructive: true });
    await ds.disconnect();
    ds = await open(ns(), [v2]);
    const qty = (await ds.find(ITEM, { sort: [{ field: 'id', dir: 'asc' }] })).map((r) => r.qty);
    expect(qty).to.deep.equal([12, 3.5, null, 7]);
    expect(await ds.count(ITEM, { field: 'qty', op: 'gt', value: 5 })).to.equal(2);
  });

  it('converts numbers to text exactly, keeping the index on the column', async () => {
    const v1 = objectDef('mig_code', [field('code', 'number', { index: true })]);
    ds = await open(ns(), [v1]);
    for (const [id, code] of [
      ['a', 2],
      ['b', 2.5],
      ['c', -0.1],
    ] as const)
      await ds.create('mig_code', { id, code });
    const v2 = objectDef('mig_code', [field('code', 'text', { index: true })]);
    const [step] = await planDatasource(ds, [v2]);
    expect(isDestructive(step)).to.equal(false);
    await migrateDatasource(ds, [v2]);
    expect((await ns().admin()('mig_code').select('code').orderBy('id')).map((r: { code: unknown }) => r.code)).to.deep.equal([
      '2',
      '2.5',
      '-0.1',
    ]);
    expect([...(await ds.dialect.listIndexes(ns().admin(), 'mig_code'))]).to.include('mig_code_code_index');
    expect(await planDatasource(ds, [v2])).to.deep.equal([]);
  });

  it('refuses a new required field on a table with records without a backfill value, and fills it with one', async () => {
    ds = await seeded(ns());
    const v2 = item(field('title', 'text'), field('qty', 'text'), field('note', 'text'), field('stock', 'number', { required: true }));
    const refused = await refusal(migrateDatasource(ds, [v2]));
    expect(refused).to.include('required fields need a backfill value');
    expect(refused).to.include('mig_item.stock: 3 record(s) hold no value; give one with --backfill mig_item.stock=VALUE');
    expect(await ns().admin()(ITEM).columnInfo()).not.to.have.property('stock');
    expect(await refusal(migrateDatasource(ds, [v2], { backfill: new Map([['mig_item.stock', 'many']]) }))).to.include(
      "Backfill value for 'mig_item.stock' on datasource 'default' must be a number",
    );
    await migrateDatasource(ds, [v2], { backfill: new Map([['mig_item.stock', '5']]) });
    expect((await rows(ns(), 'stock')).map((r) => Number(r.stock))).to.deep.equal([5, 5, 5]);
    expect(await planDatasource(ds, [v2])).to.deep.equal([]);
  });

  it('keeps a column no field maps to unless destructive steps are allowed', async () => {
    ds = await seeded(ns());
    const v2 = item(field('title', 'text'), field('qty', 'text'));
    const refused = await refusal(migrateDatasource(ds, [v2]));
    expect(refused).to.include("1 destructive step(s) need --allow-destructive:\n  [destructive] drop column 'mig_item.note'");
    expect((await rows(ns(), 'note')).map((r) => r.note)).to.deep.equal(['n1', 'n2', null]);
    await migrateDatasource(ds, [v2], { allowDestructive: true });
    expect(await ns().admin()(ITEM).columnInfo()).not.to.have.property('note');
    expect((await rows(ns(), 'title')).map((r) => r.title)).to.deep.equal(['Apple', 'Pear', 'Plum']);
  });

  it('writes migration files that replay on a fresh database, and refuses an applied file once edited', async function () {
    this.timeout(30_000);
    const folder = tempDir();
    const fresh = await openNamespace(ns().label);
    let replica: SqlDatasource | undefined;
    try {
      ds = createSqlDatasource('default', ns().config(), { baseDir: process.cwd() });
      await ds.connect();
      const first = await writePlan(ds, [V1()], folder.dir);
      await applyFiles(ds, folder.dir);
      await ns().admin()(ITEM).insert({ id: 'a', title: 'Apple', qty: '12', note: 'n1' });
      const v2 = item(
        field('name', 'text', { renamed_from: 'title' }),
        field('qty', 'number'),
        field('stock', 'number', { required: true }),
      );
      const second = await writePlan(ds, [v2], folder.dir, new Map([['mig_item.stock', '4']]));
      expect(second!.steps.map((s) => s.kind)).to.deep.equal(['rename_column', 'add_column', 'change_type', 'backfill', 'drop_column']);
      expect(await refusal(applyFiles(ds, folder.dir))).to.include('destructive step(s) need --allow-destructive');
      const applied = await applyFiles(ds, folder.dir, { allowDestructive: true });
      expect(applied.map((a) => a.name)).to.deep.equal([second!.path.split(/[\\/]/).pop()]);
      expect(await rows(ns(), 'id', 'name', 'stock')).to.deep.equal([{ id: 'a', name: 'Apple', stock: 4 }]);

      replica = createSqlDatasource('default', fresh.config(), { baseDir: process.cwd() });
      await replica.connect();
      expect((await applyFiles(replica, folder.dir, { allowDestructive: true })).map((a) => a.name)).to.have.length(2);
      expect(await applyFiles(replica, folder.dir)).to.deep.equal([]);
      expect(await planDatasource(replica, [v2])).to.deep.equal([]);

      writeFileSync(first!.path, readFileSync(first!.path, 'utf8').replace('"title"', '"headline"'));
      const refused = await refusal(applyFiles(replica, folder.dir));
      expect(refused).to.match(
        /Migration file '.*_default_create-table-mig-item\.json' was applied with checksum \w+… and has changed since/,
      );
    } finally {
      await replica?.disconnect();
      await fresh.drop();
      folder.remove();
    }
  });

  it("with schemaSync 'off' changes nothing, and refuses to start while the database is behind", async () => {
    const behind = await refusal(open(ns(), [V1()], { schemaSync: 'off' }));
    expect(behind).to.include("Datasource 'default' has schemaSync 'off' and its database is behind the metadata (1 step(s)):");
    expect(behind).to.include("create table 'mig_item'");
    expect(behind).to.include('`objectql migrate apply --datasource default`');
    expect(await ns().admin().schema.hasTable(ITEM)).to.equal(false);

    await (await seeded(ns())).disconnect();
    ds = await open(ns(), [V1()], { schemaSync: 'off' });
    expect(await ds.count(ITEM, undefined)).to.equal(3);
    await ds.disconnect();
    const v2 = item(field('title', 'text'), field('qty', 'text'), field('note', 'text'), field('size', 'number'));
    expect(await refusal(open(ns(), [v2], { schemaSync: 'off' }))).to.include("add column 'mig_item.size'");
    ds = undefined;
  });
});
