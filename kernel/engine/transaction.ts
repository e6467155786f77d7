/**
 * The unit of work behind `engine.transaction()`: one driver transaction per datasource, opened on
 * the first write to it and kept open until the caller's function has settled; then all commit
 * (or all roll back) and the changes are announced.
 *
 * A driver offers `transaction(fn)` only (committed when fn resolves): each one is held open by a
 * function that waits for the scope's decision. Cross-datasource atomicity is best-effort, as for
 * a single write whose hooks reach another datasource: the transactions commit one by one, the
 * last opened first (the order nesting would give); when a commit fails, those not yet committed
 * roll back, those already committed stay, their changes are announced and the error is thrown.
 */
import type { RequestContext } from '../context';
import type { Datasource, Transaction } from '../drivers';
import { ObjectQLError } from '../errors';
import type { Engine } from './engine';
import type { RecordChange } from './types';
import { announceChanges, UnitOfWork } from './unit-of-work';

/** Thrown inside a held driver transaction to make the driver roll it back; recognised when the driver rethrows it. */
class Rollback extends Error {
  constructor() {
    super('rolled back');
    this.name = 'Rollback';
  }
}

interface HeldTransaction {
  datasource: string;
  /** Lets the driver commit (true) or roll back (false); resolves when it has, rejects when a commit failed. */
  finish(commit: boolean): Promise<void>;
}

type State = 'active' | 'finishing' | 'finished';

export class TransactionScope {
  private readonly open = new Map<string, Transaction>();
  private readonly changes: RecordChange[] = [];
  /** The unit every repository of this transaction shares. */
  readonly unit: UnitOfWork;
  private readonly held: HeldTransaction[] = [];
  private readonly opening = new Map<string, Promise<Transaction>>();
  private state: State = 'active';
  /** The first write that failed: the scope may only roll back (see engine.transaction). */
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly request: RequestContext,
  ) {
    this.unit = new UnitOfWork(this.open, this.changes, this);
  }

  get active(): boolean {
    return this.state === 'active';
  }

  /** Runs one write on `ds` inside this scope, opening ds's transaction first if needed; a failure marks the scope rollback-only. */
  async run<T>(ds: Datasource, fn: () => Promise<T>): Promise<T> {
    try {
      await this.join(ds);
      return await fn();
    } catch (err) {
      this.fail(err);
      throw err;
    }
  }

  fail(error: unknown): void {
    this.failure ??= { error };
  }

  /** The transaction of `ds` in this scope, begun on first use (concurrent first uses share one). */
  join(ds: Datasource): Promise<Transaction> {
    if (this.state !== 'active') return Promise.reject(new ObjectQLError('DATABASE_ERROR', 'The transaction has already finished'));
    const tx = this.open.get(ds.name);
    if (tx) return Promise.resolve(tx);
    let pending = this.opening.get(ds.name);
    if (!pending) {
      pending = this.begin(ds);
      this.opening.set(ds.name, pending);
    }
    return pending;
  }

  private async begin(ds: Datasource): Promise<Transaction> {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => (decide = resolve));
    let opened!: (tx: Transaction) => void;
    const began = new Promise<Transaction>((resolve) => (opened = resolve));
    const settled = ds.transaction(async (tx) => {
      opened(tx);
      if (!(await decision)) throw new Rollback();
    });
    // Observed here so that a rejection is never unhandled; finish() awaits it for real.
    settled.catch(() => undefined);
    const finish = async (commit: boolean) => {
      decide(commit);
      try {
        await settled;
      } catch (err) {
        if (!(err instanceof Rollback)) throw err;
      }
    };
    let tx: Transaction;
    try {
      // Either the driver opened it, or it failed to begin (settled rejects first).
      let opened = false;
      tx = await Promise.race([
        began.then((t) => ((opened = true), t)),
        // Once it opened, the race is decided: no error is made (its stack costs) when it later ends.
        settled.then(() => {
          if (opened) return new Promise<never>(() => undefined);
          throw new ObjectQLError('DATABASE_ERROR', `Datasource '${ds.name}' ended a transaction before it began`);
        }),
      ]);
    } catch (err) {
      this.opening.delete(ds.name);
      decide(false);
      throw err;
    }
    if (this.state !== 'active') {
      await finish(false);
      throw new ObjectQLError('DATABASE_ERROR', 'The transaction has already finished');
    }
    this.open.set(ds.name, tx);
    this.held.push({ datasource: ds.name, finish });
    return tx;
  }

  /** Commits every transaction (last opened first) and announces the changes; rolls back instead when a write failed. */
  async commit(): Promise<void> {
    await this.settleOpening();
    if (this.failure) {
      await this.rollback();
      throw this.failure.error;
    }
    const order = [...this.held].reverse();
    const committed = new Set<string>();
    let error: { error: unknown } | undefined;
    for (const held of order) {
      if (error) {
        await held.finish(false).catch((err: unknown) => this.logger.error({ err, datasource: held.datasource }, 'rollback failed'));
        continue;
      }
      try {
        await held.finish(true);
        committed.add(held.datasource);
      } catch (err) {
        error = { error: err };
      }
    }
    const changes = this.end();
    await announceChanges(
      this.engine.deps.hooks,
      this.logger,
      error ? changes.filter((c) => committed.has(this.engine.object(c.object).def.datasource)) : changes,
    );
    if (error) throw error.error;
  }

  /** Rolls every transaction back; nothing is announced. */
  async rollback(): Promise<void> {
    await this.settleOpening();
    for (const held of [...this.held].reverse()) {
      await held.finish(false).catch((err: unknown) => this.logger.error({ err, datasource: held.datasource }, 'rollback failed'));
    }
    this.end();
  }

  /** No new transaction from here on; waits for those being opened (they register or roll back). */
  private async settleOpening(): Promise<void> {
    this.state = 'finishing';
    await Promise.allSettled([...this.opening.values()]);
  }

  private end(): RecordChange[] {
    this.state = 'finished';
    // A repository kept past the end reads outside any transaction (and cannot write: join refuses).
    this.open.clear();
    this.held.length = 0;
    return this.changes.splice(0);
  }

  private get logger() {
    return this.request.logger ?? this.engine.deps.logger;
  }
}
