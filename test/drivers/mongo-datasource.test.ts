/**
 * The mongo datasource's plumbing without a server: a recording stand-in for the client's
 * database and session takes the calls, so each test sees exactly what would reach MongoDB
 * (collection, method, arguments, session) and how answers and failures come back. What MongoDB
 * does with those calls is the business of the live suite in mongo.test.ts.
 */
import { expect } from 'chai';
import pino from 'pino';
import { ObjectQLError } from '../../kernel/errors';
import { PluginError } from '../../kernel/plugin-order';
import { MongoDatasource, parseMongoConfig } from '../../drivers/mongo';
import { ITEM, OWNER, tckObjects } from '../tck/fixtures';
import { rejection } from '../helpers/rejection';

type Call = [collection: string, method: string, ...args: unknown[]];

/** Answers by method name; a function answer is called with the arguments; an Error is thrown. */
type Answers = Record<string, unknown>;

function fakeDb(calls: Call[], answers: Answers) {
  const answer = (name: string, method: string, args: unknown[]) => {
    calls.push([name, method, ...args]);
    const a = answers[method];
    const value = typeof a === 'function' ? (a as (...x: unknown[]) => unknown)(...args) : a;
    if (value instanceof Error) throw value;
    return value;
  };
  /** The answer as the driver's promises give it: a failure as a rejection. */
  const answered = (name: string, method: string, args: unknown[]) => new Promise((resolve) => resolve(answer(name, method, args)));
  const cursor = (value: unknown) => ({ toArray: () => Promise.resolve(value) });
  return {
    createCollection(name: string) {
      return answered(name, 'createCollection', []);
    },
    collection(name: string) {
      return {
        find: (...args: unknown[]) => cursor(answer(name, 'find', args) ?? []),
        aggregate: (...args: unknown[]) => cursor(answer(name, 'aggregate', args) ?? []),
        listIndexes: (...args: unknown[]) => cursor(answer(name, 'listIndexes', args) ?? [{ v: 2, key: { _id: 1 }, name: '_id_' }]),
        countDocuments: (...args: unknown[]) => answered(name, 'countDocuments', args),
        insertOne: (...args: unknown[]) => answered(name, 'insertOne', args),
        findOne: (...args: unknown[]) => answered(name, 'findOne', args),
        findOneAndUpdate: (...args: unknown[]) => answered(name, 'findOneAndUpdate', args),
        deleteOne: (...args: unknown[]) => answered(name, 'deleteOne', args),
        createIndex: (...args: unknown[]) => answered(name, 'createIndex', args),
        dropIndex: (...args: unknown[]) => answered(name, 'dropIndex', args),
      };
    },
  };
}

function fakeSession(events: string[], commit: () => Promise<void> = () => Promise.resolve()) {
  let open = false;
  return {
    startTransaction: () => {
      events.push('start');
      open = true;
    },
    commitTransaction: async () => {
      events.push('commit');
      try {
        await commit();
      } finally {
        // As the driver does: after a commit attempt, successful or not, the transaction is over.
        open = false;
      }
    },
    abortTransaction: () => {
      events.push('abort');
      open = false;
      return Promise.resolve();
    },
    inTransaction: () => open,
    endSession: () => {
      events.push('end');
      return Promise.resolve();
    },
  };
}

const logged: unknown[] = [];
const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as pino.Logger;

function datasource(answers: Answers, options: { transactions?: boolean; session?: ReturnType<typeof fakeSession> } = {}) {
  const calls: Call[] = [];
  const ds = new MongoDatasource('default', parseMongoConfig('default', { driver: 'mongo', url: 'mongodb://h:1/app' }), { logger });
  const client = { startSession: () => options.session };
  // Stands in for what connect() sets up.
  Object.assign(ds, { client, db: fakeDb(calls, answers), transactions: options.transactions ?? false });
  return { ds, calls };
}

describe('mongo datasource, with a recording stand-in for MongoDB', () => {
  beforeEach(() => {
    logged.length = 0;
  });

  describe('find and count', () => {
    it('sends the translated filter, projection, sort and paging, and maps _id back to id', async () => {
      const { ds, calls } = datasource({ find: [{ _id: 'a', name: 'Apple' }] });
      const rows = await ds.find(ITEM, {
        filter: { field: 'qty', op: 'gt', value: 5 },
        fields: ['name'],
        sort: [
          { field: 'name', dir: 'desc' },
          { field: 'id', dir: 'asc' },
        ],
        skip: 2,
        top: 3,
      });
      expect(rows).to.deep.equal([{ id: 'a', name: 'Apple' }]);
      expect(calls).to.deep.equal([
        [
          ITEM,
          'find',
          { qty: { $gt: 5 } },
          { session: undefined, projection: { _id: 1, name: 1 }, sort: { name: -1, _id: 1 }, skip: 2, limit: 3 },
        ],
      ]);
    });

    it('leaves out what is not asked for, and asks nothing for top 0 (MongoDB reads limit 0 as no limit)', async () => {
      const { ds, calls } = datasource({ find: [] });
      await ds.find(ITEM, {});
      expect(calls).to.deep.equal([[ITEM, 'find', {}, { session: undefined, projection: undefined, sort: undefined }]]);
      calls.length = 0;
      expect(await ds.find(ITEM, { top: 0 })).to.deep.equal([]);
      expect(await ds.find(ITEM, { top: -3, skip: -1 })).to.deep.equal([]);
      expect(calls).to.deep.equal([]);
    });

    it("sorts through a relation with a $lookup of the related document in the caller's scope, helpers projected away", async () => {
      const { ds, calls } = datasource({ aggregate: [{ _id: 'a', name: 'Apple' }] });
      const rows = await ds.find(ITEM, {
        filter: { field: 'qty', op: 'gt', value: 5 },
        sort: [
          { field: 'owner', dir: 'desc', through: { object: OWNER, field: 'name', scope: { field: 'org', op: 'eq', value: 'x' } } },
          { field: 'id', dir: 'asc' },
        ],
        skip: 2,
        top: 3,
      });
      expect(rows).to.deep.equal([{ id: 'a', name: 'Apple' }]);
      const lookup = {
        $lookup: {
          from: OWNER,
          let: { ref: '$owner' },
          pipeline: [
            { $match: { $expr: { $eq: ['$_id', '$$ref'] } } },
            { $match: { org: { $eq: 'x' } } },
            { $project: { _id: 0, value: '$name' } },
          ],
          as: '#sort0',
        },
      };
      expect(calls).to.deep.equal([
        [
          ITEM,
          'aggregate',
          [
            { $match: { qty: { $gt: 5 } } },
            lookup,
            { $addFields: { '#sort0': { $arrayElemAt: ['$#sort0.value', 0] } } },
            { $sort: { '#sort0': -1, _id: 1 } },
            { $skip: 2 },
            { $limit: 3 },
            { $project: { '#sort0': 0 } },
          ],
          { session: undefined },
        ],
      ]);
      calls.length = 0;
      await ds.find(ITEM, { fields: ['name'], sort: [{ field: 'owner', dir: 'asc', through: { object: OWNER, field: 'name' } }] });
      const pipeline = calls[0][2] as Array<Record<string, any>>;
      expect(pipeline[1].$lookup.pipeline).to.have.length(2);
      expect(pipeline.slice(-2)).to.deep.equal([{ $sort: { '#sort0': 1 } }, { $project: { _id: 1, name: 1 } }]);
    });

    it('refuses paging per group, which it leaves to the engine', async () => {
      const { ds, calls } = datasource({ find: [] });
      expect(ds.capabilities.perGroupPaging).to.equal(undefined);
      const error = (await rejection(ds.find(ITEM, { perGroup: { field: 'owner', top: 2 } }))) as ObjectQLError;
      expect(error.code).to.equal('INVALID_REQUEST');
      expect(calls).to.deep.equal([]);
    });

    it('counts with countDocuments', async () => {
      const { ds, calls } = datasource({ countDocuments: 4 });
      expect(await ds.count(ITEM, { field: 'tags', op: 'isnull', value: true })).to.equal(4);
      expect(calls).to.deep.equal([[ITEM, 'countDocuments', { tags: { $in: [null, []] } }, { session: undefined }]]);
    });
  });

  describe('writes', () => {
    it('inserts the record under _id and returns it with id', async () => {
      const { ds, calls } = datasource({});
      const created = await ds.create(ITEM, { id: 'x', name: 'n', qty: undefined, tags: ['a'] });
      expect(created).to.deep.equal({ id: 'x', name: 'n', tags: ['a'] });
      expect(calls).to.deep.equal([[ITEM, 'insertOne', { _id: 'x', name: 'n', tags: ['a'] }, { session: undefined }]]);
      const generated = await ds.create(ITEM, { name: 'g' });
      expect(generated.id)
        .to.be.a('string')
        .and.equal((calls[1][2] as { _id: string })._id);
    });

    it('updates by id with a pipeline of literals and returns the whole record', async () => {
      const { ds, calls } = datasource({ findOneAndUpdate: { _id: 'x', name: 'n', meta: { $weird: 1 }, qty: null } });
      const updated = await ds.update(ITEM, 'x', { id: 'ignored', meta: { $weird: 1 }, qty: null });
      expect(updated).to.deep.equal({ id: 'x', name: 'n', meta: { $weird: 1 }, qty: null });
      expect(calls).to.deep.equal([
        [
          ITEM,
          'findOneAndUpdate',
          { _id: { $eq: 'x' } },
          [{ $set: { meta: { $literal: { $weird: 1 } }, qty: { $literal: null } } }],
          { session: undefined, returnDocument: 'after' },
        ],
      ]);
    });

    it('reads the record for an update with nothing to change, and answers null for a missing id', async () => {
      const { ds, calls } = datasource({ findOne: null, findOneAndUpdate: null });
      expect(await ds.update(ITEM, 'gone', {})).to.equal(null);
      expect(await ds.update(ITEM, 'gone', { name: 'x' })).to.equal(null);
      expect(calls.map((c) => c[1])).to.deep.equal(['findOne', 'findOneAndUpdate']);
      expect(calls[0]).to.deep.equal([ITEM, 'findOne', { _id: { $eq: 'gone' } }, { session: undefined }]);
    });

    it('deletes by id and tells whether a record went', async () => {
      let count = 1;
      const { ds, calls } = datasource({ deleteOne: () => ({ deletedCount: count-- }) });
      expect(await ds.delete(ITEM, 'x')).to.equal(true);
      expect(await ds.delete(ITEM, 'x')).to.equal(false);
      expect(calls[0]).to.deep.equal([ITEM, 'deleteOne', { _id: { $eq: 'x' } }, { session: undefined }]);
    });

    it('turns a duplicate key into CONFLICT and any other failure into DATABASE_ERROR, logged', async () => {
      const dup = Object.assign(new Error('E11000 duplicate key error'), { code: 11000, keyPattern: { code: 1 } });
      const conflict = (await rejection(datasource({ insertOne: dup }).ds.create(ITEM, { code: 'C' }))) as ObjectQLError;
      expect(conflict.code).to.equal('CONFLICT');
      expect(conflict.details).to.deep.equal({ object: ITEM, fields: ['code'] });
      const down = new Error('connection refused by 10.0.0.1');
      const failed = (await rejection(datasource({ find: () => down }).ds.find(ITEM, {}))) as ObjectQLError;
      expect(failed.code).to.equal('DATABASE_ERROR');
      expect(failed.message).to.equal(`Database error during find on object '${ITEM}'`);
      expect(logged).to.have.length(1);
    });
  });

  describe('aggregate', () => {
    it('runs the pipeline and returns its rows', async () => {
      const { ds, calls } = datasource({ aggregate: [{ status: 'open', n: 2 }] });
      const rows = await ds.aggregate(ITEM, { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }] });
      expect(rows).to.deep.equal([{ status: 'open', n: 2 }]);
      expect(calls).to.deep.equal([
        [
          ITEM,
          'aggregate',
          [
            { $group: { _id: { g0: { $ifNull: ['$status', null] } }, a0: { $sum: 1 } } },
            { $project: { _id: 0, status: '$_id.g0', n: '$a0' } },
            { $sort: { status: 1 } },
          ],
          { session: undefined },
        ],
      ]);
    });

    it('answers one row without groupBy when the pipeline gives none', async () => {
      const { ds } = datasource({ aggregate: [] });
      expect(
        await ds.aggregate(ITEM, {
          aggregate: [
            { func: 'count', alias: 'n' },
            { func: 'max', field: 'qty', alias: 'top' },
          ],
        }),
      ).to.deep.equal([{ n: 0, top: null }]);
    });
  });

  describe('syncSchema', () => {
    it('creates the collection and the indexes the metadata asks for', async () => {
      const { ds, calls } = datasource({});
      await ds.syncSchema(tckObjects());
      expect(calls).to.deep.equal([
        [ITEM, 'createCollection'],
        [ITEM, 'listIndexes'],
        [ITEM, 'createIndex', { code: 1 }, { name: 'oql_uq_code', unique: true, partialFilterExpression: { code: { $gte: '' } } }],
        [OWNER, 'createCollection'],
        [OWNER, 'listIndexes'],
        [
          OWNER,
          'createIndex',
          { org: 1, email: 1 },
          { name: 'oql_idx_tck_owner_org_email', unique: true, partialFilterExpression: { org: { $gte: '' }, email: { $gte: '' } } },
        ],
      ]);
    });

    it('keeps an existing collection and its matching indexes, drops stale ones of its own', async () => {
      const exists = Object.assign(new Error('Collection already exists'), { code: 48 });
      const { ds, calls } = datasource({
        createCollection: exists,
        listIndexes: [
          { v: 2, key: { _id: 1 }, name: '_id_' },
          { v: 2, key: { code: 1 }, name: 'oql_uq_code', unique: true, partialFilterExpression: { code: { $gte: '' } } },
          { v: 2, key: { name: 1 }, name: 'oql_ix_name' },
          { v: 2, key: { qty: 1 }, name: 'made_by_hand' },
        ],
      });
      await ds.syncSchema([tckObjects()[0]]);
      expect(calls.map((c) => c.slice(1))).to.deep.equal([['createCollection'], ['listIndexes'], ['dropIndex', 'oql_ix_name']]);
    });

    it('stops start-up when stored records break a new unique index, and names the unique field of a later conflict by index name', async () => {
      const dup = Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
      const { ds } = datasource({ createIndex: dup });
      const error = await rejection(ds.syncSchema([tckObjects()[0]]));
      expect(error).to.be.instanceOf(PluginError);
      expect(error.message).to.equal(
        `Cannot make field 'code' of object '${ITEM}' unique (index 'oql_uq_code'): stored records share a value; fix the data or the metadata`,
      );

      const old = Object.assign(
        new Error('E11000 duplicate key error collection: app.tck_owner index: oql_idx_tck_owner_org_email dup key: { : "x", : "y" }'),
        { code: 11000 },
      );
      const { ds: synced } = datasource({ insertOne: old });
      await synced.syncSchema(tckObjects());
      const conflict = (await rejection(synced.create(OWNER, { org: 'x', email: 'y' }))) as ObjectQLError;
      expect(conflict.details).to.deep.equal({ object: OWNER, fields: ['org', 'email'] });
    });
  });

  describe('transactions', () => {
    it('runs fn in a session transaction and commits, passing the session to every call', async () => {
      const events: string[] = [];
      const session = fakeSession(events);
      const { ds, calls } = datasource({ countDocuments: 1 }, { transactions: true, session });
      expect(ds.capabilities.transactions).to.equal(true);
      const result = await ds.transaction(async (tx) => {
        await ds.create(ITEM, { id: 'x' }, tx);
        await ds.count(ITEM, undefined, tx);
        events.push('fn done');
        return 'ok';
      });
      expect(result).to.equal('ok');
      expect(events).to.deep.equal(['start', 'fn done', 'commit', 'end']);
      expect(calls.map((c) => (c[c.length - 1] as { session: unknown }).session)).to.deep.equal([session, session]);
    });

    it('aborts and rethrows fn’s own error unchanged', async () => {
      const events: string[] = [];
      const { ds } = datasource({}, { transactions: true, session: fakeSession(events) });
      const boom = new ObjectQLError('VALIDATION_FAIL', 'boom');
      expect(await rejection(ds.transaction(async () => Promise.reject(boom)))).to.equal(boom);
      expect(events).to.deep.equal(['start', 'abort', 'end']);
    });

    it('maps a failed commit and refuses the finished transaction afterwards', async () => {
      const events: string[] = [];
      const session = fakeSession(events, async () => Promise.reject(Object.assign(new Error('WriteConflict'), { code: 112 })));
      const { ds } = datasource({}, { transactions: true, session });
      let leaked: unknown;
      const error = (await rejection(
        ds.transaction((tx) => {
          leaked = tx;
          return Promise.resolve();
        }),
      )) as ObjectQLError;
      expect(error.code).to.equal('CONFLICT');
      expect(events).to.deep.equal(['start', 'commit', 'end']);
      const late = (await rejection(ds.find(ITEM, {}, leaked as never))) as ObjectQLError;
      expect(late.message).to.equal('Transaction has already finished');
    });
  });
});
