import { expect } from 'chai';
import { ObjectQLError } from '../../kernel/errors';
import type { SqlDatasource } from '../../drivers/sql';
import { describeDialects, memoryLogger, type Namespace } from './sql/helpers';
import { field, objectDef } from './sql/objects';
import { objectqlRejection as rejection } from '../helpers/rejection';

const ACCOUNT = objectDef(
  'err_account',
  [field('name', 'text'), field('code', 'text', { unique: true }), field('org', 'text'), field('email', 'email')],
  [{ name: 'org_email', fields: ['org', 'email'], unique: true }],
);
const NOTE = objectDef('err_note', [field('text', 'text')]);

describeDialects('sql driver error mapping', (ns, label) => {
  let ds: SqlDatasource;
  let log: ReturnType<typeof memoryLogger>;
  beforeEach(async () => {
    log = memoryLogger();
    ds = ns().make('default', log.logger);
    await ds.connect();
    await ds.syncSchema([ACCOUNT, NOTE]);
  });
  afterEach(() => ds.disconnect());

  it('maps a unique violation to CONFLICT naming the object and the field', async () => {
    await ds.create('err_account', { id: 'a1', code: 'C-1' });
    const error = await rejection(ds.create('err_account', { id: 'a2', code: 'C-1' }));
    expect(error.code).to.equal('CONFLICT');
    expect(error.status).to.equal(409);
    expect(error.message).to.equal("Duplicate value for field 'code' of object 'err_account'");
    expect(error.details).to.deep.equal({ object: 'err_account', fields: ['code'] });
    const onUpdate = await rejection(
      ds
        .update('err_account', 'a1', { code: 'C-1', name: 'x' })
        .then(() => ds.create('err_account', { id: 'a3' }))
        .then(() => ds.update('err_account', 'a3', { code: 'C-1' })),
    );
    expect(onUpdate.details).to.deep.equal({ object: 'err_account', fields: ['code'] });
  });

  it('names every field of a unique index, and the id of a duplicate record', async () => {
    await ds.create('err_account', { id: 'a1', org: 'o', email: 'e@example.com' });
    const composite = await rejection(ds.create('err_account', { id: 'a2', org: 'o', email: 'e@example.com' }));
    expect(composite.details).to.deep.equal({ object: 'err_account', fields: ['org', 'email'] });
    expect(composite.message).to.contain('org, email');
    const id = await rejection(ds.create('err_account', { id: 'a1' }));
    expect(id.code).to.equal('CONFLICT');
    expect(id.message).to.equal("A record with id 'a1' already exists in object 'err_account'");
  });

  it('reports any other store failure as DATABASE_ERROR without SQL or driver text, and logs the cause', async () => {
    await ds.create('err_note', { id: 'n1', text: 'x' });
    await ns().admin().schema.dropTable('err_note');
    const error = await rejection(ds.find('err_note', { filter: { field: 'text', op: 'contains', value: 'x' } }));
    expect(error.code).to.equal('DATABASE_ERROR');
    expect(error.status).to.equal(500);
    expect(error.message).to.equal("Database operation failed on 'err_note'");
    expect(error.details).to.equal(undefined);
    const logged = log.lines.find((l) => l.msg === 'sql: store operation failed');
    expect(logged, 'the cause is logged').to.not.equal(undefined);
    expect(logged).to.deep.include({ object: 'err_note', operation: 'find' });
    expect(JSON.stringify(logged!.err)).to.match(/err_note/);
    // A failed query leaves the pool usable.
    expect(await ds.count('err_account', undefined)).to.equal(0);
    const inTx = await rejection(ds.transaction(async (tx) => ds.create('err_note', { text: 'y' }, tx)));
    expect(inTx.code).to.equal('DATABASE_ERROR');
    await ds.create('err_account', { name: 'still works' });
    expect(await ds.count('err_account', undefined)).to.equal(1);
  });

  it('stores long text where the column allows it, and refuses it as VALIDATION_ERROR naming the field where not', async () => {
    const long = 'x'.repeat(300);
    if (label === 'mysql') {
      const error = await rejection(ds.create('err_account', { id: 'a1', name: long }));
      expect(error.code).to.equal('VALIDATION_ERROR');
      expect(error.details).to.deep.equal({ fields: { name: 'is too long to store (mysql column limit)' } });
    } else {
      await ds.create('err_account', { id: 'a1', name: long });
      expect((await ds.find('err_account', { fields: ['name'] }))[0].name).to.equal(long);
    }
  });

  it('returns the record when an update changes nothing', async () => {
    await ds.create('err_account', { id: 'a1', name: 'same' });
    expect(await ds.update('err_account', 'a1', { name: 'same' })).to.deep.include({ id: 'a1', name: 'same' });
    expect(await ds.update('err_account', 'a1', {})).to.deep.include({ id: 'a1', name: 'same' });
    expect(await ds.update('err_account', 'missing', {})).to.equal(null);
  });

  it('rejects a finished transaction, a transaction of another datasource and nested transactions', async () => {
    let leaked: unknown;
    await ds.transaction((tx) => {
      leaked = tx;
      return Promise.resolve();
    });
    expect((await rejection(ds.find('err_note', {}, leaked as never))).code).to.equal('DATABASE_ERROR');
    const other = ns().make('other');
    await other.connect();
    await other.syncSchema([NOTE]);
    try {
      await other.transaction(async (tx) => {
        expect((await rejection(ds.create('err_note', { id: 'x' }, tx))).message).to.contain('does not belong');
      });
    } finally {
      await other.disconnect();
    }
    const nested = await rejection(ds.transaction(() => ds.transaction(() => Promise.resolve('inner'))));
    expect(nested.message).to.contain('Nested transactions');
    expect(await ds.transaction(() => Promise.resolve('after'))).to.equal('after');
  });

  it("rolls back and rethrows the function's own error unchanged", async () => {
    const plain = new Error('hook failed');
    let caught: unknown;
    try {
      await ds.transaction(async (tx) => {
        await ds.create('err_note', { id: 'n1' }, tx);
        throw plain;
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).to.equal(plain);
    expect(await ds.count('err_note', undefined)).to.equal(0);
  });
});

/** Terminates this run's connections from a connection of the test's own. */
async function killConnections(ns: Namespace): Promise<number> {
  const admin = ns.admin();
  if (ns.label === 'postgres') {
    const result = await admin.raw(
      'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ?',
      [ns.where],
    );
    return result.rows.length;
  }
  const [rows] = await admin.raw('SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()', [ns.where]);
  for (const row of rows as Array<{ id: number }>) await admin.raw(`KILL ${Number(row.id)}`);
  return rows.length;
}

describeDialects(
  'sql driver after a lost connection',
  (ns) => {
    it('recovers by itself: at most one DATABASE_ERROR, then queries succeed', async () => {
      const ds = ns().make('default', memoryLogger().logger);
      await ds.connect();
      await ds.syncSchema([NOTE]);
      try {
        await ds.create('err_note', { id: 'n1', text: 'before' });
        // Several connections in the pool, all idle.
        await Promise.all([1, 2, 3].map(() => ds.count('err_note', undefined)));
        for (let round = 0; round < 2; round++) {
          expect(await killConnections(ns())).to.be.greaterThan(0);
          // First right away (the pool may not have noticed yet), then after the sockets closed.
          if (round === 1) await new Promise((resolve) => setTimeout(resolve, 50));
          let failures = 0;
          let value: number | undefined;
          for (let attempt = 0; attempt < 3 && value === undefined; attempt++) {
            try {
              value = await ds.count('err_note', undefined);
            } catch (e) {
              expect((e as ObjectQLError).code).to.equal('DATABASE_ERROR');
              failures += 1;
            }
          }
          expect(failures, 'failed queries before recovering').to.be.at.most(1);
          expect(value).to.equal(1);
          // Every pooled connection works again, in parallel too.
          expect(await Promise.all([1, 2, 3, 4].map(() => ds.count('err_note', undefined)))).to.deep.equal([1, 1, 1, 1]);
          await ds.create('err_note', { text: `after ${round}` });
          await ds.delete(
            'err_note',
            (await ds.find('err_note', { filter: { field: 'text', op: 'eq', value: `after ${round}` } }))[0].id as string,
          );
        }
      } finally {
        await ds.disconnect();
      }
    });
  },
  ['postgres', 'mysql'],
);
