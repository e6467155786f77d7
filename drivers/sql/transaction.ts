import type { Knex } from 'knex';
import type { Transaction } from '../../kernel';

/** A transaction of the SQL driver: the knex transaction every call made with it runs on. */
export class SqlTransaction implements Transaction {
  active = true;

  constructor(
    readonly datasource: string,
    readonly owner: object,
    readonly trx: Knex.Transaction,
  ) {}
}
