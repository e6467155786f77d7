/**
 * Decimal fields on each SQL engine (docs/adr/0035): their column types, the conversion of the
 * floating-point columns databases made before (lossless, or left alone with a warning), widening
 * when a scale grows, and values a decimal column cannot hold refused as VALIDATION_ERROR.
 */
import { expect } from 'chai';
import type { FieldDefinition, ObjectDefinition } from '../../kernel/metadata/types';
import type { SqlDatasource } from '../../drivers/sql';
import { rejection } from '../helpers/rejection';
import { describeDialects, memoryLogger, type Namespace } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const BILL = 'dec_bill';

function bill(amount: FieldDefinition, price: FieldDefinition): ObjectDefinition {
  return objectDef(BILL, [field('label', 'text'), amount, price, field('weight', 'number')]);
}

/** What databases made before decimal fields: currency and scaled numbers in double columns. */
const BEFORE = bill(field('amount', 'number'), field('price', 'number'));
const NOW = bill(field('amount', 'currency'), field('price', 'number', { scale: 2 }));

async function open(ns: Namespace, def: ObjectDefinition, logger = memoryLogger().logger): Promise<SqlDatasource> {
  const ds = ns.make('default', logger);
  await ds.connect();
  await ds.syncSchema([def]);
  return ds;
}

async function sums(ds: SqlDatasource): Promise<Record<string, unknown>> {
  const [row] = await ds.aggregate(BILL, {
    aggregate: [
      { func: 'sum', field: 'amount', alias: 'amount' },
      { func: 'sum', field: 'price', alias: 'price' },
    ],
  });
  return row;
}

describeDialects('sql decimal fields', (ns, label) => {
  const native = label !== 'sqlite';

  it('stores currency and scaled numbers as the engine decimal type; plain numbers stay floating point', async () => {
    const ds = await open(ns(), NOW);
    try {
      const decimals = await ds.dialect.decimalColumns(ns().admin(), BILL);
      if (native) {
        expect(Object.fromEntries(decimals)).to.deep.equal({ amount: { precision: 65, scale: 30 }, price: { precision: 37, scale: 2 } });
      } else {
        // SQLite has no decimal type: REAL, summed exactly by the driver's aggregate.
        expect(decimals.size).to.equal(0);
        const info = await ns().admin()(BILL).columnInfo();
        expect(info.amount.type.toLowerCase()).to.equal('real');
      }
      await ds.create(BILL, { id: 'a', amount: 0.1, price: 0.1, weight: 0.1 });
      await ds.create(BILL, { id: 'b', amount: 0.2, price: 0.2, weight: 0.2 });
      expect(await sums(ds)).to.deep.equal({ amount: 0.3, price: 0.3 });
      expect((await ds.find(BILL, { filter: { field: 'id', op: 'eq', value: 'a' } }))[0]).to.deep.include({ amount: 0.1, price: 0.1 });
    } finally {
      await ds.disconnect();
    }
  });

  it('converts a pre-existing floating-point column whose values all fit, keeping every value', async () => {
    const first = await open(ns(), BEFORE);
    const values = [0.1, 0.2, 19.99, 1234567.89, -0.05, 0];
    for (const [i, v] of values.entries()) await first.create(BILL, { id: `r${i}`, amount: v, price: v, weight: v });
    await first.create(BILL, { id: 'tiny', amount: 1e-7, weight: 0.30000000000000004 });
    await first.disconnect();

    const log = memoryLogger();
    const ds = await open(ns(), NOW, log.logger);
    try {
      const decimals = await ds.dialect.decimalColumns(ns().admin(), BILL);
      expect([...decimals.keys()].sort()).to.deep.equal(native ? ['amount', 'price'] : []);
      if (native) {
        const converted = log.lines.filter((l) => l.msg === 'sql: converted column to decimal').map((l) => l.field);
        expect(converted.sort()).to.deep.equal(['amount', 'price']);
      }
      const records = await ds.find(BILL, { sort: [{ field: 'id', dir: 'asc' }] });
      expect(records.map((r) => [r.id, r.amount, r.price, r.weight])).to.deep.equal([
        ...values.map((v, i) => [`r${i}`, v, v, v]),
        ['tiny', 1e-7, null, 0.30000000000000004],
      ]);
      expect(await sums(ds)).to.deep.equal({ amount: 1234588.1300001, price: 1234588.13 });
      // Synced again: nothing left to convert.
      const again = memoryLogger();
      const second = await open(ns(), NOW, again.logger);
      await second.disconnect();
      expect(again.lines.filter((l) => String(l.msg).startsWith('sql: converted'))).to.deep.equal([]);
    } finally {
      await ds.disconnect();
    }
  });

  it('leaves a floating-point column alone, with a warning, when a stored value has more decimals than the scale', async () => {
    const first = await open(ns(), BEFORE);
    await first.create(BILL, { id: 'a', price: 0.125 });
    await first.create(BILL, { id: 'b', price: 2.5 });
    await first.disconnect();

    const log = memoryLogger();
    const ds = await open(ns(), NOW, log.logger);
    try {
      const decimals = await ds.dialect.decimalColumns(ns().admin(), BILL);
      expect(decimals.has('price')).to.equal(false);
      if (native) {
        const warning = log.lines.find((l) => l.level === 40 && l.field === 'price');
        expect(warning, JSON.stringify(log.lines)).to.deep.include({ object: BILL, misfits: 1 });
        expect(String(warning?.msg)).to.contain('1 stored value(s) do not fit').and.contain('(37');
      }
      // Start-up went on; every value is still there and the field keeps working.
      expect((await ds.find(BILL, { sort: [{ field: 'id', dir: 'asc' }] })).map((r) => r.price)).to.deep.equal([0.125, 2.5]);
      await ds.create(BILL, { id: 'c', price: 0.01 });
      expect((await sums(ds)).price).to.be.closeTo(2.635, 1e-12);
    } finally {
      await ds.disconnect();
    }
  });

  it('widens a decimal column when the field scale grows, and keeps it when the scale shrinks', async () => {
    const first = await open(ns(), NOW);
    await first.create(BILL, { id: 'a', price: 1.25 });
    await first.disconnect();

    const wider = bill(field('amount', 'currency'), field('price', 'number', { scale: 4 }));
    const ds = await open(ns(), wider);
    try {
      if (native) expect((await ds.dialect.decimalColumns(ns().admin(), BILL)).get('price')).to.deep.equal({ precision: 39, scale: 4 });
      await ds.create(BILL, { id: 'b', price: 1.2345 });
      expect((await ds.find(BILL, { sort: [{ field: 'id', dir: 'asc' }] })).map((r) => r.price)).to.deep.equal([1.25, 1.2345]);
      await ds.syncSchema([NOW]);
      if (native) expect((await ds.dialect.decimalColumns(ns().admin(), BILL)).get('price')).to.deep.equal({ precision: 39, scale: 4 });
      expect((await ds.find(BILL, { filter: { field: 'id', op: 'eq', value: 'b' } }))[0].price).to.equal(1.2345);
    } finally {
      await ds.disconnect();
    }
  });

  it('refuses, never rounds, a value a decimal column left by an earlier scale cannot hold', async () => {
    const first = await open(ns(), NOW);
    await first.create(BILL, { id: 'a', price: 1.25 });
    await first.disconnect();

    const plain = bill(field('amount', 'currency'), field('price', 'number'));
    const ds = await open(ns(), plain);
    try {
      const write = ds.create(BILL, { id: 'b', price: 0.125 });
      if (native) {
        const error = await rejection(write);
        expect(error).to.have.property('code', 'VALIDATION_ERROR');
        expect(error).to.have.nested.property('details.fields.price').that.contains('and 2 after');
      } else {
        await write;
        expect((await ds.find(BILL, { filter: { field: 'id', op: 'eq', value: 'b' } }))[0].price).to.equal(0.125);
      }
      expect((await ds.find(BILL, { filter: { field: 'id', op: 'eq', value: 'a' } }))[0].price).to.equal(1.25);
    } finally {
      await ds.disconnect();
    }
  });

  it('refuses a value a decimal column cannot hold exactly as VALIDATION_ERROR naming the field, on every engine alike', async () => {
    const ds = await open(ns(), NOW);
    try {
      for (const amount of [1e35, -1e40, 1.5e-31]) {
        const error = await rejection(ds.create(BILL, { id: 'x', amount }));
        expect(error).to.have.property('code', 'VALIDATION_ERROR');
        expect(error)
          .to.have.nested.property('details.fields.amount')
          .that.contains('at most 35 digits before the decimal point and 30 after');
      }
      await ds.create(BILL, { id: 'big', amount: 1e34 });
      await ds.create(BILL, { id: 'small', amount: 1e-30 });
      expect(await ds.count(BILL, undefined)).to.equal(2);
      // A plain number field is not bound by it.
      await ds.create(BILL, { id: 'huge', weight: 1e300 });
    } finally {
      await ds.disconnect();
    }
  });

  it('refuses at start-up a decimal field declaring more than 30 decimal places', async () => {
    const ds = ns().make();
    await ds.connect();
    try {
      const error = await rejection(ds.syncSchema([bill(field('amount', 'currency', { scale: 31 }), field('price', 'number'))]));
      expect(error.name).to.equal('PluginError');
      expect(error.message).to.contain(`object '${BILL}'`).and.contain("field 'amount'").and.contain('scale 31').and.contain('at most 30');
    } finally {
      await ds.disconnect();
    }
  });
});
