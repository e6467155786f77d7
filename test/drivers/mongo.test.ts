/**
 * The mongo driver: the shared driver suite and a few checks of its own against a live server
 * (MONGO_URL; skipped with the reason printed when unset or unreachable, failing instead when
 * REQUIRE_SERVICES names mongo), then what can be checked without one.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import pino from 'pino';
import type { DriverFactory, Transaction } from '../../kernel/drivers';
import { createKernel } from '../../server';
import { ObjectQLError } from '../../kernel/errors';
import type { Kernel } from '../../kernel/kernel';
import { PluginError } from '../../kernel/plugin-order';
import mongoDriver, { MongoDatasource, parseMongoConfig } from '../../drivers/mongo';
import { DEFAULT_CLIENT_OPTIONS, databaseOfUrl, redactUrl } from '../../drivers/mongo/config';
import { indexSpecs, planIndexes } from '../../drivers/mongo/indexes';
import { supportsTransactions } from '../../drivers/mongo/transaction';
import { USERS, startServer } from '../helpers/server';
import { SERVICE_URLS, needService } from '../helpers/services';
import { runDriverSuite } from '../tck/driver-suite';
import { ITEM, OWNER, tckObjects } from '../tck/fixtures';
import { rejection } from '../helpers/rejection';

const silent = pino({ level: 'silent' });

async function probe(url: string): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2000 });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}

describe('mongo driver against a server', function () {
  // One database per run, dropped at the end: runs never see each other's data.
  const database = `objectql_test_${process.pid}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let url: string | undefined;

  before(async function () {
    if (await needService(this, 'mongo', probe)) url = SERVICE_URLS.mongo;
  });

  after(async function () {
    if (!url) return;
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.db(database).dropDatabase();
      await client.db(`${database}_app`).dropDatabase();
    } finally {
      await client.close();
    }
  });

  const make = (): MongoDatasource =>
    new MongoDatasource('default', parseMongoConfig('default', { driver: 'mongo', url: url!, database }), { logger: silent });

  runDriverSuite('mongo', make);

  it('serves the sample application through JSON-RPC, seeded, filtered, grouped and written', async function () {
    this.timeout(30000);
    const server = await startServer({
      security: { allowBodyUser: true, adminRoles: ['admin'] },
      datasources: { default: { driver: 'mongo', url: url!, database: `${database}_app` } },
    });
    try {
      const call = async (op: string, object: string, args: unknown) => {
        const res = await server.rpc({ op, object, args, user: USERS.carol });
        expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
        return res.body;
      };
      const all = await call('find', 'project', { fields: ['name', 'status'], sort: [['name', 'asc']] });
      expect(all.items.length).to.be.greaterThan(0);
      const names = all.items.map((p: { name: string }) => p.name);
      expect(names).to.deep.equal([...names].sort());
      const byStatus = await call('find', 'project', { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }] });
      expect(byStatus.items.reduce((n: number, row: { n: number }) => n + row.n, 0)).to.equal(all.items.length);
      const created = await call('create', 'account', { name: 'Mongo Test Account' });
      expect((await call('count', 'account', { filters: [['name', 'contains', 'MONGO TEST']] })).count).to.equal(1);
      await call('delete', 'account', { id: created.id });
    } finally {
      await server.stop();
    }
  });

  describe('mongo specifics', () => {
    let ds: MongoDatasource;
    let client: MongoClient;
    let raw: Db;
    before(async () => {
      client = new MongoClient(url!, { serverSelectionTimeoutMS: 5000 });
      await client.connect();
      raw = client.db(database);
    });
    after(async () => {
      await client?.close();
    });
    beforeEach(async () => {
      ds = make();
      await ds.connect();
      await ds.syncSchema(tckObjects());
      await raw.collection(ITEM).deleteMany({});
      await raw.collection(OWNER).deleteMany({});
    });
    afterEach(async () => {
      await ds.disconnect();
    });

    it('stores the id as a string _id and uses the configured database', async () => {
      await ds.create(ITEM, { id: 'x1', name: 'n' });
      expect(ds.databaseName).to.equal(database);
      const stored = await raw.collection(ITEM).findOne({ _id: 'x1' as never });
      expect(stored).to.deep.equal({ _id: 'x1', name: 'n' });
    });

    it('makes partial unique indexes, so nulls never conflict', async () => {
      const indexes = await raw.collection(ITEM).listIndexes().toArray();
      const code = indexes.find((i) => i.name === 'oql_uq_code');
      expect(code).to.deep.include({ key: { code: 1 }, unique: true, partialFilterExpression: { code: { $gte: '' } } });
      const owners = await raw.collection(OWNER).listIndexes().toArray();
      expect(owners.find((i) => i.name === 'oql_idx_tck_owner_org_email')).to.deep.include({
        key: { org: 1, email: 1 },
        unique: true,
        partialFilterExpression: { org: { $gte: '' }, email: { $gte: '' } },
      });
    });

    it('drops its own indexes the metadata no longer asks for and leaves others alone', async () => {
      const coll = raw.collection(ITEM);
      await coll.createIndex({ name: 1 }, { name: 'oql_stale' });
      await coll.createIndex({ qty: 1 }, { name: 'someone_elses' });
      await ds.syncSchema(tckObjects());
      const names = (await coll.listIndexes().toArray()).map((i) => i.name);
      expect(names).to.include('someone_elses').and.include('oql_uq_code').and.not.include('oql_stale');
    });

    it('names the field of a unique violation without store text', async () => {
      await ds.create(ITEM, { code: 'U-1' });
      const error = (await rejection(ds.create(ITEM, { code: 'U-1' }))) as ObjectQLError;
      expect(error).to.be.instanceOf(ObjectQLError);
      expect(error.code).to.equal('CONFLICT');
      expect(error.message).to.equal(`Duplicate value for field 'code' of object '${ITEM}'`);
      expect(error.details).to.deep.equal({ object: ITEM, fields: ['code'] });
    });

    it('matches regular-expression metacharacters and newlines literally', async () => {
      const special = '.*+?^$()[]{}|\\#';
      await ds.create(ITEM, { id: 's', name: special });
      await ds.create(ITEM, { id: 'n', name: 'abc\n' });
      await ds.create(ITEM, { id: 'p', name: 'plain' });
      const ids = async (filter: object) => (await ds.find(ITEM, { filter: filter as never, fields: ['id'] })).map((r) => r.id).sort();
      expect(await ids({ field: 'name', op: 'contains', value: '.*' })).to.deep.equal(['s']);
      expect(await ids({ field: 'name', op: 'startswith', value: special })).to.deep.equal(['s']);
      expect(await ids({ field: 'name', op: 'endswith', value: '|\\#' })).to.deep.equal(['s']);
      expect(await ids({ field: 'name', op: 'like', value: '.*+?^$()[]{}|\\\\#' })).to.deep.equal(['s']);
      expect(await ids({ field: 'name', op: 'like', value: 'abc' })).to.deep.equal([]);
      expect(await ids({ field: 'name', op: 'like', value: 'ABC_' })).to.deep.equal(['n']);
      expect(await ids({ field: 'name', op: 'like', value: '%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%b' })).to.deep.equal([]);
    });

    it('compares text with another field literally and case-insensitively', async () => {
      await ds.create(ITEM, { id: 'x', name: 'A.B-suffix', code: 'a.b' });
      await ds.create(ITEM, { id: 'y', name: 'AxB-suffix', code: 'a.b' });
      const found = await ds.find(ITEM, { filter: { field: 'name', op: 'startswith', ref: 'code' }, fields: ['id'] });
      expect(found.map((r) => r.id)).to.deep.equal(['x']);
    });

    it('declares transactions as the deployment allows', async () => {
      const hello = await raw.admin().command({ hello: 1 });
      expect(ds.capabilities).to.deep.equal({
        transactions: supportsTransactions(hello),
        aggregation: true,
        fullTextSearch: false,
        sortThrough: true,
      });
    });
  });
});

describe('mongo driver without a server', () => {
  const config = { driver: 'mongo', url: 'mongodb://127.0.0.1:1/objectql_unit' };

  it('registers itself as the mongo driver', () => {
    const drivers = new Map<string, DriverFactory>();
    const kernel = { registerDriver: (name: string, factory: DriverFactory) => drivers.set(name, factory) };
    const plugin = mongoDriver({});
    expect(plugin.name).to.equal('driver-mongo');
    void plugin.register(kernel as unknown as Kernel, {});
    const made = drivers.get('mongo')!('reports', config, { logger: silent, baseDir: process.cwd() });
    expect(made).to.be.instanceOf(MongoDatasource);
    expect(made.name).to.equal('reports');
    expect(made.capabilities).to.deep.equal({ transactions: false, aggregation: true, fullTextSearch: false, sortThrough: true });
    expect((made as MongoDatasource).databaseName).to.equal('objectql_unit');
  });

  describe('config', () => {
    it('takes the database from `database` or the url, over MongoClient defaults', () => {
      expect(parseMongoConfig('d', config)).to.deep.equal({
        url: config.url,
        database: 'objectql_unit',
        options: { ...DEFAULT_CLIENT_OPTIONS },
      });
      const given = parseMongoConfig('d', { ...config, database: 'other', options: { serverSelectionTimeoutMS: 100, appName: 'x' } });
      expect(given.database).to.equal('other');
      expect(given.options).to.deep.equal({ serverSelectionTimeoutMS: 100, ignoreUndefined: true, appName: 'x' });
      expect(databaseOfUrl('mongodb://u:p@h1:1,h2:2/my%20db?replicaSet=rs0')).to.equal('my db');
      expect(databaseOfUrl('mongodb+srv://cluster.example.net/app')).to.equal('app');
      expect(databaseOfUrl('mongodb://h:1/?replicaSet=rs0')).to.equal(undefined);
      expect(databaseOfUrl('mongodb://h:1')).to.equal(undefined);
    });

    it('stops start-up with a message naming the datasource for a bad config', () => {
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ driver: 'mongo' }, "'url' must be a MongoDB connection string"],
        [{ driver: 'mongo', url: 'postgres://x/y' }, "'url' must be a MongoDB connection string"],
        [{ driver: 'mongo', url: 'mongodb://h:1' }, "name the database in 'database'"],
        [{ driver: 'mongo', url: 'mongodb://h:1/d', database: '' }, "'database' must be a non-empty string"],
        [{ driver: 'mongo', url: 'mongodb://h:1/d', options: 'x' }, "'options' must be an object"],
        [{ driver: 'mongo', url: 'mongodb://h:1/d', databse: 'typo' }, "unknown option 'databse'"],
      ];
      for (const [cfg, text] of bad) {
        expect(() => parseMongoConfig('reports', cfg as never), JSON.stringify(cfg))
          .to.throw(PluginError, text)
          .with.property('message')
          .that.contains("Datasource 'reports'");
      }
    });

    it('hides passwords of connection strings in messages', () => {
      expect(redactUrl('failed for mongodb://admin:s3cret@db:27017/app')).to.equal('failed for mongodb://admin:***@db:27017/app');
    });

    it('fails connect with a start-up error that names the datasource and hides the password', async function () {
      this.timeout(10000);
      const ds = new MongoDatasource(
        'reports',
        parseMongoConfig('reports', {
          driver: 'mongo',
          url: 'mongodb://admin:s3cret@127.0.0.1:1/app',
          options: { serverSelectionTimeoutMS: 200 },
        }),
        { logger: silent },
      );
      const error = await rejection(ds.connect());
      expect(error).to.be.instanceOf(PluginError);
      expect(error.message).to.contain("Datasource 'reports' could not connect to MongoDB").and.not.contain('s3cret');
      expect(ds.capabilities.transactions).to.equal(false);
      await ds.disconnect();
    });
  });

  it('is loaded by name from a config, and an unreachable server stops start-up naming the datasource', async function () {
    this.timeout(10000);
    const kernel = await createKernel({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      metadata: [],
      datasources: { default: { driver: 'mongo', url: 'mongodb://127.0.0.1:1/objectql_unit', options: { serverSelectionTimeoutMS: 200 } } },
    });
    const error = await rejection(kernel.start());
    expect(error.message).to.contain("Datasource 'default' could not connect to MongoDB");
  });

  describe('before connecting', () => {
    const ds = new MongoDatasource('default', parseMongoConfig('default', config), { logger: silent });

    it('answers DATABASE_ERROR to every call', async () => {
      for (const call of [
        ds.find(ITEM, {}),
        ds.count(ITEM, undefined),
        ds.create(ITEM, {}),
        ds.update(ITEM, 'x', {}),
        ds.delete(ITEM, 'x'),
        ds.aggregate(ITEM, { aggregate: [{ func: 'count', alias: 'n' }] }),
      ]) {
        const error = (await rejection(call)) as ObjectQLError;
        expect(error).to.be.instanceOf(ObjectQLError);
        expect(error.code).to.equal('DATABASE_ERROR');
        expect(error.message).to.equal("Datasource 'default' is not connected");
      }
    });

    it('refuses an object with a field named _id before any I/O', async () => {
      const [item] = tckObjects();
      const def = { ...item, fields: { ...item.fields, _id: { name: '_id', type: 'text' as const, label: '_id' } } };
      const error = await rejection(ds.syncSchema([def]));
      expect(error).to.be.instanceOf(PluginError);
      expect(error.message).to.contain(`Object '${ITEM}'`).and.contain("'_id'");
    });

    it('runs a transaction without a session where the deployment has none, and checks its transaction objects', async () => {
      let leaked!: Transaction;
      const result = await ds.transaction((tx) => {
        leaked = tx;
        expect(tx.datasource).to.equal('default');
        return Promise.resolve('done');
      });
      expect(result).to.equal('done');
      expect(((await rejection(ds.find(ITEM, {}, leaked))) as ObjectQLError).message).to.equal('Transaction has already finished');
      const other = new MongoDatasource('other', parseMongoConfig('other', config), { logger: silent });
      await other.transaction(async (tx) => {
        expect(((await rejection(ds.create(ITEM, {}, tx))) as ObjectQLError).message).to.equal(
          "Transaction does not belong to datasource 'default'",
        );
      });
      const boom = new ObjectQLError('VALIDATION_FAIL', 'boom');
      expect(await rejection(ds.transaction(async () => Promise.reject(boom)))).to.equal(boom);
    });
  });

  describe('transactions', () => {
    it('are supported on a replica set member or a mongos with sessions, not on a standalone server', () => {
      expect(supportsTransactions({ setName: 'rs0', logicalSessionTimeoutMinutes: 30 })).to.equal(true);
      expect(supportsTransactions({ msg: 'isdbgrid', logicalSessionTimeoutMinutes: 30 })).to.equal(true);
      expect(supportsTransactions({ logicalSessionTimeoutMinutes: 30 })).to.equal(false);
      expect(supportsTransactions({ setName: 'rs0' })).to.equal(false);
      expect(supportsTransactions({ setName: '', logicalSessionTimeoutMinutes: 30 })).to.equal(false);
    });
  });

  describe('indexes from metadata', () => {
    it('asks for a partial unique index per unique field and unique index, and a plain one per index', () => {
      const [item, owner] = tckObjects();
      expect(indexSpecs(item)).to.deep.equal([
        { name: 'oql_uq_code', fields: ['code'], key: { code: 1 }, unique: true, partialFilterExpression: { code: { $gte: '' } } },
      ]);
      expect(indexSpecs(owner)).to.deep.equal([
        {
          name: 'oql_idx_tck_owner_org_email',
          fields: ['org', 'email'],
          key: { org: 1, email: 1 },
          unique: true,
          partialFilterExpression: { org: { $gte: '' }, email: { $gte: '' } },
        },
      ]);
      const fields = {
        ...item.fields,
        qty: { ...item.fields.qty, index: true },
        price: { ...item.fields.price, unique: true },
        active: { ...item.fields.active, unique: true },
        tags: { ...item.fields.tags, unique: true },
        meta: { ...item.fields.meta, unique: true },
        name: { ...item.fields.name, index: true },
      };
      const specs = indexSpecs({
        ...item,
        fields,
        indexes: [
          { name: 'by_name', fields: ['name'], unique: true },
          { name: 'by_id_qty', fields: ['id', 'qty'], unique: false },
        ],
      });
      expect(specs.map((s) => [s.name, s.unique, s.partialFilterExpression])).to.deep.equal([
        // `name` was asked for plainly and as unique: the unique one serves both.
        ['oql_idx_by_name', true, { name: { $gte: '' } }],
        ['oql_ix_qty', false, undefined],
        ['oql_uq_price', true, { price: { $gte: -Infinity } }],
        ['oql_uq_active', true, { active: { $gte: false } }],
        ['oql_uq_tags', true, { tags: { $type: 'array' } }],
        ['oql_uq_meta', true, { meta: { $type: 'object' } }],
        ['oql_uq_code', true, { code: { $gte: '' } }],
        ['oql_idx_by_id_qty', false, undefined],
      ]);
      expect(specs.find((s) => s.name === 'oql_idx_by_id_qty')!.key).to.deep.equal({ _id: 1, qty: 1 });
    });

    it('drops its own indexes that changed or went away, keeps the rest, creates what is missing', () => {
      const [item] = tckObjects();
      const wanted = indexSpecs(item);
      const existing = [
        { v: 2, key: { _id: 1 }, name: '_id_' },
        { v: 2, key: { code: 1 }, name: 'oql_uq_code', unique: true, partialFilterExpression: { code: { $gte: '' } } },
        { v: 2, key: { name: 1 }, name: 'oql_ix_name' },
        { v: 2, key: { qty: 1 }, name: 'hand_made' },
      ];
      expect(planIndexes(existing, wanted)).to.deep.equal({ drop: ['oql_ix_name'], create: [] });
      const changed = [{ v: 2, key: { code: 1 }, name: 'oql_uq_code', unique: true }];
      expect(planIndexes(changed, wanted)).to.deep.equal({ drop: ['oql_uq_code'], create: wanted });
      expect(planIndexes([], wanted)).to.deep.equal({ drop: [], create: wanted });
    });
  });
});
