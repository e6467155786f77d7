import type { Transaction } from '../drivers';
import type { RecordChange } from './types';

/**
 * One write and everything its hooks and actions do: the transactions open per datasource, and
 * the changes to announce once the outermost transaction has committed.
 */
export class UnitOfWork {
  constructor(
    readonly transactions: ReadonlyMap<string, Transaction> = new Map(),
    readonly changes: RecordChange[] = [],
  ) {}

  get isOutermost(): boolean {
    return this.transactions.size === 0;
  }

  /** The same unit with one more open transaction; changes stay shared with the outer unit. */
  with(datasource: string, tx: Transaction): UnitOfWork {
    return new UnitOfWork(new Map([...this.transactions, [datasource, tx]]), this.changes);
  }
}
