import type { Transaction } from '../../kernel';
import type { Db } from './query-sql';

/** A transaction of the SQL driver: knex bound to the connection every call made with it runs on. */
export class SqlTransaction implements Transaction {
  active = true;

  constructor(
    readonly datasource: string,
    readonly owner: object,
    readonly trx: Db,
  ) {}
}
