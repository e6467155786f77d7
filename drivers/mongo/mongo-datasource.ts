import { MongoClient, type ClientSession, type Collection, type Db, type Document } from 'mongodb';
import type { Logger } from 'pino';
import { ObjectQLError, PluginError, isDecimalField } from '../../kernel';
import type { AggregateQuery, Datasource, DbRecord, DriverCapabilities, Filter, ObjectDefinition, Query, Transaction } from '../../kernel';
import { finishAggregate, toPipeline } from './aggregate-mongo';
import { redactUrl, type MongoDatasourceConfig } from './config';
import { toStoreError, type ErrorContext } from './errors';
import { toMongoFilter } from './filter-mongo';
import type { IndexSpec } from './indexes';
import { syncCollection } from './schema';
import { toMongoSort } from './sort-mongo';
import { sortThroughPipeline } from './sort-through-mongo';
import { MongoTransaction, hello, supportsTransactions } from './transaction';
import { MONGO_ID, fieldPath, fromDocument, toDocument, toPatch, toProjection } from './values';

/** A stored document: its `_id` is the record's id, a string. */
type Stored = Document & { _id: string };

/**
 * A datasource on one MongoDB database: a collection per object, `_id` holding the record's id.
 * Queries and aggregations are translated (filter-mongo.ts, aggregate-mongo.ts) and run by the
 * server; nothing is filtered in JavaScript.
 */
export class MongoDatasource implements Datasource {
  private client: MongoClient | undefined;
  private db: Db | undefined;
  private transactions = false;
  /** Per object: the driver's index names → their fields, to name them in a CONFLICT. */
  private readonly indexFields = new Map<string, Map<string, string[]>>();
  // Per object, the fields whose sums and averages are exact decimals (kernel/query/decimal.ts).
  private readonly decimals = new Map<string, ReadonlySet<string>>();

  constructor(
    readonly name: string,
    private readonly config: MongoDatasourceConfig,
    private readonly deps: { logger: Logger },
  ) {}

  /**
   * `transactions` is known once connected: true on a replica set or sharded cluster, false on a
   * standalone server. Paging per group is left to the engine (perGroupPaging absent).
   */
  get capabilities(): DriverCapabilities {
    return { transactions: this.transactions, aggregation: true, fullTextSearch: false, sortThrough: true };
  }

  get databaseName(): string {
    return this.config.database;
  }

  async connect(): Promise<void> {
    if (this.client) return;
    const client = new MongoClient(this.config.url, this.config.options);
    try {
      await client.connect();
      this.transactions = supportsTransactions(await hello(client));
    } catch (err) {
      await client.close().catch(() => undefined);
      this.deps.logger.error({ err, datasource: this.name }, 'mongo: connect failed');
      throw new PluginError(
        `Datasource '${this.name}' could not connect to MongoDB: ${redactUrl(err instanceof Error ? err.message : String(err))}`,
      );
    }
    this.client = client;
    this.db = client.db(this.config.database);
  }

  async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.db = undefined;
    this.transactions = false;
    if (client) await client.close();
  }

  async syncSchema(objects: ObjectDefinition[]): Promise<void> {
    for (const def of objects) {
      for (const field of Object.keys(def.fields ?? {})) {
        if (field === MONGO_ID)
          throw new PluginError(
            `Object '${def.name}'${def.source ? ` (${def.source})` : ''} has a field named '_id', where the mongo driver keeps the record id; rename the field`,
          );
        fieldPath(field);
      }
    }
    const { db } = this.connected();
    for (const def of objects) {
      let wanted: IndexSpec[];
      try {
        wanted = await syncCollection(db, def);
      } catch (err) {
        if (err instanceof PluginError) throw err;
        throw toStoreError(err, this.errorContext(def.name, 'syncSchema'));
      }
      this.indexFields.set(def.name, new Map(wanted.map((w) => [w.name, w.fields])));
      this.decimals.set(def.name, new Set(Object.keys(def.fields).filter((name) => isDecimalField(def.fields[name]))));
    }
  }

  async find(object: string, query: Query, tx?: Transaction): Promise<DbRecord[]> {
    return this.call(object, 'find', tx, async (coll, session) => {
      const skip = Math.max(0, Math.trunc(query.skip ?? 0));
      const top = query.top === undefined ? undefined : Math.max(0, Math.trunc(query.top));
      if (top === 0) return [];
      if (query.perGroup) {
        throw new ObjectQLError('INVALID_REQUEST', `Datasource '${this.name}' cannot page per group (capabilities.perGroupPaging)`, {
          object,
        });
      }
      const through = sortThroughPipeline(query, skip, top);
      if (through) return (await coll.aggregate(through, { session }).toArray()).map(fromDocument);
      const cursor = coll.find(toMongoFilter(query.filter), {
        session,
        projection: toProjection(query.fields),
        sort: toMongoSort(query.sort, fieldPath),
        ...(skip > 0 ? { skip } : {}),
        ...(top !== undefined ? { limit: top } : {}),
      });
      return (await cursor.toArray()).map(fromDocument);
    });
  }

  async count(object: string, filter: Filter | undefined, tx?: Transaction): Promise<number> {
    return this.call(object, 'count', tx, (coll, session) => coll.countDocuments(toMongoFilter(filter), { session }));
  }

  async create(object: string, data: DbRecord, tx?: Transaction): Promise<DbRecord> {
    return this.call(object, 'create', tx, async (coll, session) => {
      const doc = toDocument(data) as Stored;
      await coll.insertOne(doc, { session });
      return fromDocument(doc);
    });
  }

  async update(object: string, id: string, data: DbRecord, tx?: Transaction): Promise<DbRecord | null> {
    return this.call(object, 'update', tx, async (coll, session) => {
      const patch = toPatch(data);
      const byId = { [MONGO_ID]: { $eq: String(id) } };
      // A pipeline `$set` of `$literal`s stores each value exactly as given, even a json value
      // whose keys start with `$`, which the `$set` update operator would refuse.
      const set = Object.fromEntries(Object.entries(patch).map(([field, value]: [string, unknown]) => [field, { $literal: value }]));
      const doc =
        Object.keys(patch).length === 0
          ? await coll.findOne(byId, { session })
          : await coll.findOneAndUpdate(byId, [{ $set: set }], { session, returnDocument: 'after' });
      return doc ? fromDocument(doc) : null;
    });
  }

  async delete(object: string, id: string, tx?: Transaction): Promise<boolean> {
    return this.call(object, 'delete', tx, async (coll, session) => {
      const result = await coll.deleteOne({ [MONGO_ID]: { $eq: String(id) } }, { session });
      return result.deletedCount === 1;
    });
  }

  async aggregate(object: string, query: AggregateQuery, tx?: Transaction): Promise<DbRecord[]> {
    return this.call(object, 'aggregate', tx, async (coll, session) => {
      const plan = toPipeline(query, this.decimals.get(object));
      if (plan.none) return [];
      return finishAggregate(await coll.aggregate(plan.pipeline, { session }).toArray(), plan);
    });
  }

  /**
   * With transactions: one session and transaction, committed when fn resolves, aborted when it
   * throws (fn's error is rethrown as it was). Without (a standalone server; capabilities say
   * so): fn runs with a transaction object holding no session, and each of its writes commits on
   * its own. fn is never run twice (no automatic retry): it runs hooks, which may not be
   * repeatable.
   */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    if (!this.transactions) {
      const tx = new MongoTransaction(this.name, this, undefined);
      try {
        return await fn(tx);
      } finally {
        tx.active = false;
      }
    }
    const session = this.connected().client.startSession();
    const tx = new MongoTransaction(this.name, this, session);
    try {
      session.startTransaction();
      const result = await fn(tx);
      tx.active = false;
      try {
        await session.commitTransaction();
      } catch (err) {
        throw toStoreError(err, this.errorContext('', 'commit'));
      }
      return result;
    } catch (err) {
      tx.active = false;
      if (session.inTransaction()) {
        await session
          .abortTransaction()
          .catch((abortErr: unknown) => this.deps.logger.error({ err: abortErr, datasource: this.name }, 'mongo: abort failed'));
      }
      throw err;
    } finally {
      await session.endSession();
    }
  }

  private connected(): { client: MongoClient; db: Db } {
    if (!this.client || !this.db) throw new ObjectQLError('DATABASE_ERROR', `Datasource '${this.name}' is not connected`);
    return { client: this.client, db: this.db };
  }

  private useTx(tx: Transaction | undefined): MongoTransaction | undefined {
    if (tx === undefined) return undefined;
    if (!(tx instanceof MongoTransaction) || tx.owner !== this) {
      throw new ObjectQLError('DATABASE_ERROR', `Transaction does not belong to datasource '${this.name}'`);
    }
    if (!tx.active) throw new ObjectQLError('DATABASE_ERROR', 'Transaction has already finished');
    return tx;
  }

  private errorContext(object: string, operation: string): ErrorContext {
    return {
      datasource: this.name,
      object,
      operation,
      logger: this.deps.logger,
      indexFields: (index: string) => this.indexFields.get(object)?.get(index),
    };
  }

  /** Runs one store call on an object's collection; every failure comes out as an ObjectQLError. */
  private async call<T>(
    object: string,
    operation: string,
    tx: Transaction | undefined,
    fn: (coll: Collection<Stored>, session: ClientSession | undefined) => Promise<T>,
  ): Promise<T> {
    const session = this.useTx(tx)?.session;
    const { db } = this.connected();
    try {
      return await fn(db.collection<Stored>(object), session);
    } catch (err) {
      throw toStoreError(err, this.errorContext(object, operation));
    }
  }
}
