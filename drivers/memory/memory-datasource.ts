import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Mutex } from 'async-mutex';
import { ObjectQLError, compileFilter, isDecimalField } from '../../kernel';
import type { Datasource, DbRecord, DriverCapabilities, Transaction, ObjectDefinition, AggregateQuery, Filter, Query } from '../../kernel';
import { aggregateRows } from './aggregate';
import { checkUnique, conflict, uniqueKeys } from './constraints';
import { applyQuery } from './query';
import { MemoryTransaction } from './transaction';

type Table = Map<string, DbRecord>;

/** `work`'s result as a promise and its throw as a rejection: the Datasource contract, for work that is synchronous here. */
function settled<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}

/** A deep copy of caller data without its undefined keys. */
function copyInput(data: DbRecord): DbRecord {
  const out: DbRecord = {};
  for (const [k, v] of Object.entries(data)) {
    if (v !== undefined) out[k] = structuredClone(v);
  }
  return out;
}

/**
 * A datasource on plain JS maps. Stored records are never mutated in place (every write stores a
 * new object), which lets a transaction detect a record changed outside it by identity.
 */
export class MemoryDatasource implements Datasource {
  readonly capabilities: DriverCapabilities = {
    transactions: true,
    aggregation: true,
    fullTextSearch: false,
    perGroupPaging: true,
    sortThrough: true,
  };
  private readonly tables = new Map<string, Table>();
  private readonly unique = new Map<string, string[][]>();
  // Per object, the fields whose sums and averages are exact decimals (kernel/query/decimal.ts).
  private readonly decimals = new Map<string, ReadonlySet<string>>();
  private readonly mutex = new Mutex();
  // Detects a nested transaction() call, which would otherwise wait on the mutex forever.
  private readonly currentTx = new AsyncLocalStorage<MemoryTransaction>();

  constructor(readonly name: string) {}

  async connect(): Promise<void> {}

  async disconnect(): Promise<void> {}

  syncSchema(objects: ObjectDefinition[]): Promise<void> {
    return settled(() => {
      for (const def of objects) {
        this.table(def.name);
        this.unique.set(def.name, uniqueKeys(def));
        this.decimals.set(def.name, new Set(Object.keys(def.fields).filter((name) => isDecimalField(def.fields[name]))));
      }
    });
  }

  /** Transactions run one at a time here: what a transaction finds, no other reads or writes until it ends. */
  lockRows(object: string, query: Query, tx: Transaction): Promise<DbRecord[]> {
    return this.find(object, query, tx);
  }

  find(object: string, query: Query, tx?: Transaction): Promise<DbRecord[]> {
    return settled(() => {
      const t = this.useTx(tx);
      const rows = this.candidates(object, query.filter, t);
      return applyQuery(rows, query, (related, id) => this.get(related, id, t)).map((r) => structuredClone(r));
    });
  }

  count(object: string, filter: Filter | undefined, tx?: Transaction): Promise<number> {
    return settled(() => {
      const matches = compileFilter(filter);
      let n = 0;
      for (const r of this.candidates(object, filter, this.useTx(tx))) if (matches(r)) n += 1;
      return n;
    });
  }

  create(object: string, data: DbRecord, tx?: Transaction): Promise<DbRecord> {
    return settled(() => {
      const t = this.useTx(tx);
      const { id: given, ...rest } = copyInput(data);
      const id = given === undefined || given === null ? randomUUID() : typeof given === 'string' ? given : JSON.stringify(given);
      const record: DbRecord = { id, ...rest };
      if (this.get(object, id, t)) {
        throw conflict(object, ['id'], `A record with id '${id}' already exists in object '${object}'`);
      }
      checkUnique(object, this.keys(object), record, this.rows(object, t));
      this.write(object, id, record, t);
      return structuredClone(record);
    });
  }

  async createMany(object: string, records: DbRecord[], tx?: Transaction): Promise<void> {
    const fields = (r: DbRecord) =>
      Object.keys(r)
        .filter((k) => k !== 'id')
        .sort()
        .join();
    if (records.some((r) => fields(r) !== fields(records[0]))) {
      throw new ObjectQLError('INVALID_REQUEST', `createMany on object '${object}': every record must set the same fields`, { object });
    }
    if (!tx) return this.transaction((t) => this.createMany(object, records, t));
    for (const record of records) await this.create(object, record, tx);
  }

  increment(object: string, id: string, field: string, by: number, tx?: Transaction): Promise<number | undefined> {
    return settled(() => {
      const t = this.useTx(tx);
      const current = this.get(object, id, t);
      if (!current) return undefined;
      const value = current[field] ?? 0;
      if (typeof value !== 'number' || field === 'id') {
        throw new ObjectQLError('INVALID_REQUEST', `Field '${field}' of object '${object}' is not a number field`, { object, field });
      }
      this.write(object, id, { ...structuredClone(current), [field]: value + by }, t);
      return value + by;
    });
  }

  update(object: string, id: string, data: DbRecord, tx?: Transaction): Promise<DbRecord | null> {
    return settled(() => {
      const t = this.useTx(tx);
      const current = this.get(object, id, t);
      if (!current) return null;
      const { id: _ignored, ...patch } = copyInput(data);
      const record: DbRecord = { ...structuredClone(current), ...patch, id: current.id };
      checkUnique(object, this.keys(object), record, this.rows(object, t));
      this.write(object, id, record, t);
      return structuredClone(record);
    });
  }

  updateWhere(object: string, filter: Filter, data: DbRecord, tx?: Transaction): Promise<number> {
    return settled(() => {
      const t = this.useTx(tx);
      const matches = compileFilter(filter);
      const { id: _ignored, ...patch } = copyInput(data);
      const changed = [...this.candidates(object, filter, t)].filter(matches).map((r) => ({ ...structuredClone(r), ...patch, id: r.id }));
      for (const record of changed) {
        checkUnique(object, this.keys(object), record, this.rows(object, t));
        this.write(object, String(record.id), record, t);
      }
      return changed.length;
    });
  }

  delete(object: string, id: string, tx?: Transaction): Promise<boolean> {
    return settled(() => {
      const t = this.useTx(tx);
      if (!this.get(object, id, t)) return false;
      this.write(object, id, null, t);
      return true;
    });
  }

  aggregate(object: string, query: AggregateQuery, tx?: Transaction): Promise<DbRecord[]> {
    const decimals = this.decimals.get(object) ?? new Set<string>();
    return settled(() => structuredClone(aggregateRows(this.rows(object, this.useTx(tx)), query, decimals)));
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    if (this.currentTx.getStore()?.active) {
      throw new ObjectQLError(
        'DATABASE_ERROR',
        `Nested transactions are not supported on datasource '${this.name}'; pass the open transaction instead`,
      );
    }
    const release = await this.mutex.acquire();
    const tx = new MemoryTransaction(this.name, this);
    try {
      const result = await this.currentTx.run(tx, () => fn(tx));
      this.commit(tx);
      return result;
    } finally {
      tx.active = false;
      release();
    }
  }

  /** Validates every staged write against the committed data, then applies them all at once. */
  private commit(tx: MemoryTransaction): void {
    for (const [object, writes] of tx.staged) {
      const table = this.table(object);
      const keys = this.keys(object);
      // Read once for all staged writes below, and only when there is a unique key to check.
      const rows = keys.length ? [...this.rows(object, tx)] : [];
      for (const [id, { record, base }] of writes) {
        // Written outside the transaction since it first touched this record.
        if (table.get(id) !== base) {
          throw conflict(object, ['id'], `Record '${id}' of object '${object}' was modified outside the transaction`);
        }
        if (record) checkUnique(object, keys, record, rows);
      }
    }
    for (const [object, writes] of tx.staged) {
      const table = this.table(object);
      for (const [id, { record }] of writes) {
        if (record) table.set(id, record);
        else table.delete(id);
      }
    }
  }

  private useTx(tx: Transaction | undefined): MemoryTransaction | undefined {
    if (tx === undefined) return undefined;
    if (!(tx instanceof MemoryTransaction) || tx.owner !== this) {
      throw new ObjectQLError('DATABASE_ERROR', `Transaction does not belong to datasource '${this.name}'`);
    }
    if (!tx.active) throw new ObjectQLError('DATABASE_ERROR', 'Transaction has already finished');
    return tx;
  }

  private table(object: string): Table {
    let table = this.tables.get(object);
    if (!table) {
      table = new Map();
      this.tables.set(object, table);
    }
    return table;
  }

  private keys(object: string): string[][] {
    return this.unique.get(object) ?? [];
  }

  /** The stored record as seen by tx (its staged writes over the committed data). */
  private get(object: string, id: string, tx: MemoryTransaction | undefined): DbRecord | undefined {
    const staged = tx?.lookup(object, id);
    if (staged) return staged.record ?? undefined;
    return this.tables.get(object)?.get(id);
  }

  /**
   * The rows a filter can match: looked up by key when the filter pins `id` (alone or in a
   * top-level and), every row otherwise. The filter itself is still applied by the caller.
   */
  private candidates(object: string, filter: Filter | undefined, tx: MemoryTransaction | undefined): Iterable<DbRecord> {
    const ids = pinnedIds(filter);
    if (!ids) return this.rows(object, tx);
    const out: DbRecord[] = [];
    for (const id of ids) {
      const row = typeof id === 'string' ? this.get(object, id, tx) : undefined;
      if (row) out.push(row);
    }
    return out;
  }

  /** All stored records as seen by tx, in insertion order; not copies. Iterate once. */
  private rows(object: string, tx: MemoryTransaction | undefined): Iterable<DbRecord> {
    const table = this.tables.get(object);
    const writes = tx?.staged.get(object);
    if (!writes) return table ? table.values() : [];
    const out: DbRecord[] = [];
    for (const [id, record] of table ?? []) {
      const staged = writes.get(id);
      if (!staged) out.push(record);
      else if (staged.record) out.push(staged.record);
    }
    for (const [id, { record }] of writes) {
      if (record && !table?.has(id)) out.push(record);
    }
    return out;
  }

  private write(object: string, id: string, record: DbRecord | null, tx: MemoryTransaction | undefined): void {
    const table = this.table(object);
    if (tx) tx.stage(object, id, record, table.get(id));
    else if (record) table.set(id, record);
    else table.delete(id);
  }
}

function pinnedIds(filter: Filter | undefined): unknown[] | undefined {
  if (!filter) return undefined;
  if ('and' in filter) {
    for (const part of filter.and) {
      const ids = pinnedIds(part);
      if (ids) return ids;
    }
    return undefined;
  }
  if ('field' in filter && filter.field === 'id' && 'value' in filter && !filter.fn) {
    if (filter.op === 'eq') return [filter.value];
    if (filter.op === 'in' && Array.isArray(filter.value)) {
      const values: unknown[] = filter.value;
      return [...new Set(values)];
    }
  }
  return undefined;
}
