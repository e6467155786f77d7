/**
 * updateWhere, increment and createMany (kernel/drivers.ts), the bookkeeping primitives: the same
 * values on every record a filter matches, in one statement, returning how many changed; a number
 * field of one record raised, returning its new value; many records created in a few statements.
 * Inside a transaction each commits or rolls back with it.
 */
import { expect } from 'chai';
import { MemoryDatasource } from '../../drivers/memory';
import type { Datasource, Filter } from '../../kernel';
import { describeDialects } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const JOB = 'bulk_job';
const pending: Filter = { field: 'state', op: 'eq', value: 'pending' };

function updateWhereSuite(make: () => Promise<Datasource>) {
  let ds: Datasource;
  beforeEach(async () => {
    ds = await make();
    for (const [id, state] of [
      ['j1', 'pending'],
      ['j2', 'pending'],
      ['j3', 'done'],
    ])
      await ds.create(JOB, { id, state, tries: 0 });
  });

  const states = async () =>
    Object.fromEntries((await ds.find(JOB, { sort: [{ field: 'id', dir: 'asc' }] })).map((r) => [r.id, [r.state, r.tries]]));

  it('sets the values on the matching records only and says how many', async () => {
    expect(await ds.updateWhere!(JOB, pending, { state: 'claimed', tries: 1 })).to.equal(2);
    expect(await states()).to.deep.equal({ j1: ['claimed', 1], j2: ['claimed', 1], j3: ['done', 0] });
  });

  it('matches by id list and leaves the id itself alone', async () => {
    const n = await ds.updateWhere!(JOB, { field: 'id', op: 'in', value: ['j1', 'j3', 'missing'] }, { id: 'other', state: 'x' });
    expect(n).to.equal(2);
    expect(await states()).to.deep.equal({ j1: ['x', 0], j2: ['pending', 0], j3: ['x', 0] });
  });

  it('is undone with its rolled-back transaction', async () => {
    const failed = ds.transaction(async (tx) => {
      expect(await ds.updateWhere!(JOB, pending, { state: 'claimed' }, tx)).to.equal(2);
      throw new Error('roll back');
    });
    expect(
      await failed.then(
        () => 'committed',
        (err: Error) => err.message,
      ),
    ).to.equal('roll back');
    expect(await states()).to.deep.equal({ j1: ['pending', 0], j2: ['pending', 0], j3: ['done', 0] });
  });

  it("increment raises one record's number field and returns the new value", async () => {
    expect(await ds.increment!(JOB, 'j2', 'tries', 1)).to.equal(1);
    expect(await ds.increment!(JOB, 'j2', 'tries', 5)).to.equal(6);
    expect(await ds.transaction((tx) => ds.increment!(JOB, 'j2', 'tries', 1, tx))).to.equal(7);
    expect(await states()).to.deep.equal({ j1: ['pending', 0], j2: ['pending', 7], j3: ['done', 0] });
  });

  it('increment returns undefined for an unknown id, refuses a field that is not a number, and is undone with its transaction', async () => {
    expect(await ds.increment!(JOB, 'missing', 'tries', 1)).to.equal(undefined);
    const refused = await ds.increment!(JOB, 'j1', 'state', 1).catch((err: { code?: string; message: string }) => err);
    expect(refused).to.include({ code: 'INVALID_REQUEST' });
    expect((refused as Error).message).to.contain("'state'");
    const failed = await ds
      .transaction(async (tx) => {
        expect(await ds.increment!(JOB, 'j1', 'tries', 2, tx)).to.equal(2);
        throw new Error('roll back');
      })
      .catch((err: Error) => err.message);
    expect(failed).to.equal('roll back');
    expect(await states()).to.deep.equal({ j1: ['pending', 0], j2: ['pending', 0], j3: ['done', 0] });
  });

  it('createMany creates many records in a few statements, all or none', async () => {
    const many = Array.from({ length: 77 }, (_, i) => ({ id: `m${String(i).padStart(2, '0')}`, state: 'new', tries: i }));
    await ds.createMany!(JOB, many);
    const rows = await ds.find(JOB, { filter: { field: 'state', op: 'eq', value: 'new' }, sort: [{ field: 'id', dir: 'asc' }] });
    expect(rows.map((r) => [r.id, r.tries])).to.deep.equal(many.map((r) => [r.id, r.tries]));
    await ds.createMany!(JOB, []);
    // One id taken already (j1): none of the batch is written, in or out of a transaction.
    const clash = [
      { id: 'x1', state: 'clash', tries: 0 },
      { id: 'j1', state: 'clash', tries: 0 },
    ];
    expect(await ds.createMany!(JOB, clash).catch((err: { code?: string }) => err.code)).to.equal('CONFLICT');
    const inTx = await ds.transaction((tx) => ds.createMany!(JOB, clash, tx)).catch((err: { code?: string }) => err.code);
    expect(inTx).to.equal('CONFLICT');
    expect(await ds.count(JOB, { field: 'state', op: 'eq', value: 'clash' })).to.equal(0);
    const uneven = await ds.createMany!(JOB, [
      { id: 'u1', state: 'x' },
      { id: 'u2', state: 'x', tries: 1 },
    ]).catch((err: { code?: string }) => err.code);
    expect(uneven).to.equal('INVALID_REQUEST');
  });
}

const job = objectDef(JOB, [field('state', 'text'), field('tries', 'number')]);

describeDialects('sql driver: updateWhere, increment and createMany', (ns) => {
  let opened: Datasource | undefined;
  afterEach(async () => {
    await opened?.disconnect();
    opened = undefined;
  });
  updateWhereSuite(async () => {
    const ds = ns().make();
    await ds.connect();
    await ds.syncSchema([job]);
    opened = ds;
    return ds;
  });
});

describe('memory driver: updateWhere, increment and createMany', () => {
  updateWhereSuite(async () => {
    const ds = new MemoryDatasource('default');
    await ds.connect();
    await ds.syncSchema([job]);
    return ds;
  });
});
