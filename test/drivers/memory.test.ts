import { expect } from 'chai';
import type { DriverFactory, Transaction } from '../../kernel/drivers';
import type { Kernel } from '../../kernel/kernel';
import memoryDriver, { MemoryDatasource } from '../../drivers/memory';
import { runDriverSuite } from '../tck/driver-suite';
import { ITEM, tckObjects } from '../tck/fixtures';
import { objectqlRejection as rejection } from '../helpers/rejection';

runDriverSuite('memory', () => new MemoryDatasource('default'));

describe('memory driver', () => {
  let ds: MemoryDatasource;
  beforeEach(async () => {
    ds = new MemoryDatasource('default');
    await ds.syncSchema(tckObjects());
  });

  it('declares its capabilities', () => {
    expect(ds.capabilities).to.deep.equal({
      transactions: true,
      aggregation: true,
      fullTextSearch: false,
      perGroupPaging: true,
      sortThrough: true,
    });
    expect(ds.name).to.equal('default');
  });

  it('returns copies and copies its input', async () => {
    const input = { id: 'x', meta: { deep: { n: 1 } }, tags: ['red'] };
    const created = await ds.create(ITEM, input);
    input.meta.deep.n = 2;
    input.tags.push('yellow');
    (created.meta as { deep: { n: number } }).deep.n = 3;
    const [found] = await ds.find(ITEM, {});
    (found.tags as string[]).push('fruit');
    found.id = 'changed';
    const updated = await ds.update(ITEM, 'x', { name: 'n' });
    (updated!.meta as { deep: { n: number } }).deep.n = 4;
    const [again] = await ds.find(ITEM, {});
    expect(again).to.deep.equal({ id: 'x', meta: { deep: { n: 1 } }, tags: ['red'], name: 'n' });
  });

  it('shares nothing between two instances', async () => {
    const other = new MemoryDatasource('default');
    await other.syncSchema(tckObjects());
    await ds.create(ITEM, { id: 'x', code: 'C' });
    await other.create(ITEM, { id: 'x', code: 'C' });
    await other.create(ITEM, { id: 'y' });
    expect(await ds.count(ITEM, undefined)).to.equal(1);
    expect(await other.count(ITEM, undefined)).to.equal(2);
  });

  it('serializes concurrent transactions', async () => {
    const run = (label: string) =>
      ds.transaction(async (tx) => {
        const seen = await ds.count(ITEM, undefined, tx);
        await new Promise((resolve) => setTimeout(resolve, 5));
        await ds.create(ITEM, { id: label, qty: seen }, tx);
      });
    await Promise.all([run('t1'), run('t2'), run('t3')]);
    const rows = await ds.find(ITEM, { sort: [{ field: 'id', dir: 'asc' }], fields: ['qty'] });
    expect(rows).to.deep.equal([
      { id: 't1', qty: 0 },
      { id: 't2', qty: 1 },
      { id: 't3', qty: 2 },
    ]);
  });

  it('does not block calls without a transaction while one is open', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = ds.transaction(async () => gate);
    await ds.create(ITEM, { id: 'outside' });
    expect(await ds.count(ITEM, undefined)).to.equal(1);
    release();
    await running;
  });

  it('rejects calls with a finished transaction', async () => {
    let leaked!: Transaction;
    await ds.transaction((tx) => {
      leaked = tx;
      return Promise.resolve();
    });
    expect((await rejection(ds.find(ITEM, {}, leaked))).code).to.equal('DATABASE_ERROR');
    expect((await rejection(ds.create(ITEM, { id: 'late' }, leaked))).code).to.equal('DATABASE_ERROR');
    expect(await ds.count(ITEM, undefined)).to.equal(0);
  });

  it('rejects a transaction of another datasource', async () => {
    const other = new MemoryDatasource('default');
    await other.transaction(async (tx) => {
      expect((await rejection(ds.create(ITEM, { id: 'x' }, tx))).code).to.equal('DATABASE_ERROR');
    });
  });

  it('rejects a nested transaction instead of deadlocking', async () => {
    const error = await rejection(ds.transaction(() => ds.transaction(() => Promise.resolve('inner'))));
    expect(error.code).to.equal('DATABASE_ERROR');
    expect(await ds.transaction(() => Promise.resolve('after'))).to.equal('after');
  });

  it('fails the commit when a record it wrote was changed outside it', async () => {
    await ds.create(ITEM, { id: 'x', qty: 1 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = ds.transaction(async (tx) => {
      await ds.update(ITEM, 'x', { qty: 2 }, tx);
      await ds.create(ITEM, { id: 'y' }, tx);
      await gate;
    });
    await new Promise((resolve) => setImmediate(resolve));
    await ds.update(ITEM, 'x', { qty: 3 });
    release();
    expect((await rejection(running)).code).to.equal('CONFLICT');
    expect(await ds.find(ITEM, {})).to.deep.equal([{ id: 'x', qty: 3 }]);
  });

  it('names the object and field in a unique violation', async () => {
    await ds.create(ITEM, { code: 'C' });
    const error = await rejection(ds.create(ITEM, { code: 'C' }));
    expect(error.code).to.equal('CONFLICT');
    expect(error.message).to.contain(ITEM).and.contain('code');
    expect(error.details).to.deep.equal({ object: ITEM, fields: ['code'] });
  });

  it('compares a multiple field with another field element-wise', async () => {
    await ds.create(ITEM, { id: 'x', tags: ['red', 'fruit'], status: 'fruit' });
    await ds.create(ITEM, { id: 'y', tags: ['yellow'], status: 'fruit' });
    const found = await ds.find(ITEM, { filter: { field: 'tags', op: 'eq', ref: 'status' } });
    expect(found.map((r) => r.id)).to.deep.equal(['x']);
  });

  it('works on an object syncSchema never saw', async () => {
    expect(await ds.find('unknown', {})).to.deep.equal([]);
    await ds.create('unknown', { id: 'x' });
    expect(await ds.count('unknown', undefined)).to.equal(1);
  });

  it('registers itself as the memory driver', () => {
    const drivers = new Map<string, DriverFactory>();
    const kernel = { registerDriver: (name: string, factory: DriverFactory) => drivers.set(name, factory) };
    const plugin = memoryDriver({});
    expect(plugin.name).to.equal('driver-memory');
    void plugin.register(kernel as unknown as Kernel, {});
    const made = drivers.get('memory')!('reports', { driver: 'memory' }, { logger: undefined as never, baseDir: process.cwd() });
    expect(made).to.be.instanceOf(MemoryDatasource);
    expect(made.name).to.equal('reports');
  });
});
