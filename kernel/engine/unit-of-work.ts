import type { Logger } from 'pino';
import type { Transaction } from '../drivers';
import type { KernelHooks } from '../hooks';
import type { TransactionScope } from './transaction';
import type { RecordChange } from './types';

/**
 * One write and everything its hooks and actions do: the transactions open per datasource, and
 * the changes to announce once the outermost transaction has committed.
 *
 * Inside `engine.transaction()` the unit belongs to a TransactionScope: its transactions are the
 * scope's (opened on first use, shared by every repository of the unit) and the scope, not the
 * write, commits them and announces the changes.
 */
export class UnitOfWork {
  constructor(
    readonly transactions: ReadonlyMap<string, Transaction> = new Map(),
    readonly changes: RecordChange[] = [],
    readonly scope?: TransactionScope,
  ) {}

  get isOutermost(): boolean {
    return this.transactions.size === 0;
  }

  /** The same unit with one more open transaction; changes stay shared with the outer unit. */
  with(datasource: string, tx: Transaction): UnitOfWork {
    return new UnitOfWork(new Map([...this.transactions, [datasource, tx]]), this.changes, this.scope);
  }
}

/** Hands committed changes to `recordChanged`; a failing listener is logged, never turned into an error. */
export async function announceChanges(hooks: KernelHooks, logger: Logger, changes: RecordChange[]): Promise<void> {
  for (const change of changes) {
    try {
      await hooks.recordChanged.promise(change);
    } catch (err) {
      logger.error({ err, object: change.object, id: change.id }, 'recordChanged listener failed');
    }
  }
}
