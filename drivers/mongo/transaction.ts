import type { ClientSession, MongoClient } from 'mongodb';
import type { Transaction } from '../../kernel';

/**
 * A transaction of the mongo driver: a client session with a transaction started on it, or — on a
 * deployment without transactions (a standalone server) — no session at all, so the calls made
 * with it run one by one, each atomic on its own.
 */
export class MongoTransaction implements Transaction {
  active = true;

  constructor(
    readonly datasource: string,
    readonly owner: object,
    readonly session: ClientSession | undefined,
  ) {}
}

/** What `hello` says about a deployment's support for transactions. */
export interface HelloReply {
  setName?: unknown;
  msg?: unknown;
  logicalSessionTimeoutMinutes?: unknown;
}

/**
 * Transactions need sessions and a replica set member (`setName`) or a mongos (`msg: 'isdbgrid'`,
 * a sharded cluster); a standalone server has neither.
 */
export function supportsTransactions(hello: HelloReply): boolean {
  const sessions = hello.logicalSessionTimeoutMinutes !== undefined && hello.logicalSessionTimeoutMinutes !== null;
  const topology = (typeof hello.setName === 'string' && hello.setName !== '') || hello.msg === 'isdbgrid';
  return sessions && topology;
}

const COMMAND_NOT_FOUND = 59;

/** The server's `hello` reply (`isMaster` on servers older than 4.4.2 / 4.2.10 that lack it). */
export async function hello(client: MongoClient): Promise<HelloReply> {
  const admin = client.db('admin');
  try {
    return await admin.command({ hello: 1 });
  } catch (err) {
    if ((err as { code?: unknown }).code !== COMMAND_NOT_FOUND) throw err;
    return await admin.command({ isMaster: 1 });
  }
}
