/**
 * Claims and settles deliveries in one datasource. Every write that changes a delivery's status is
 * done in a transaction that first locks the row, so two instances never both claim, renew or settle
 * the same delivery:
 *
 * - a claim locks the due rows (`lockRows` with SKIP LOCKED on PostgreSQL / MariaDB: rows another
 *   instance is claiming right now are left to it), keeps those the ordering allows, and marks them
 *   `claimed` by this instance until `now + lease`. Once committed, no other instance finds them
 *   until that lease expires;
 * - an instance that dies (SIGKILL, lost network) leaves its claims behind: when their lease expires
 *   they are due again and another instance claims them. That is the only way a delivery runs twice
 *   (at least once, never lost); in normal operation the owner renews its leases while it works;
 * - settling (done, retry, dead, release) and renewing first check, under the row lock, that the row
 *   is still claimed by this instance: a claim lost to another instance is left alone;
 * - a delivery may also start claimed: the fan-out (fanout.ts) writes it claimed by this instance
 *   when this instance's dispatcher has room. No other instance can see the row before it commits,
 *   and it is then claimed like any other: the same leases, renewals and settlements. Its key's
 *   order is checked in the fan-out's transaction, once it holds the cursor (`mayRunNow`): every
 *   earlier delivery has a lower position, so an earlier fan-out made it, and that fan-out committed
 *   before this one got the cursor. The check is a plain read, the transaction's first that takes
 *   no lock, so it sees that commit: PostgreSQL reads what was committed when each statement
 *   starts, MariaDB's snapshot is taken at a transaction's first such read, SQLite has one writer.
 *   (A locking read would hold locks on rows the dispatchers renew and settle: on MariaDB their
 *   transactions deadlocked with it under load until leases ran out and deliveries ran twice.)
 *   A delivery an earlier one of its key still holds back is written pending, to be claimed after
 *   it. This saves the claim's transaction for nearly every delivery.
 *
 * Deliveries are rows, made from committed events (fanout.ts): they survive any restart.
 */
import { ObjectQLError, type Datasource, type DbRecord, type Filter, type Transaction } from '../../../kernel';
import type { Delivery } from '../types';
import { eligibleRows, type OrderedRow } from './eligible';
import { DELIVERY_TABLE, fromDeliveryRow } from './table';

/** Pages of due rows a claim reads at most while earlier ones are all blocked by their key's order. */
const MAX_PAGES = 5;

export interface ClaimOptions {
  instanceId: string;
  batch: number;
  leaseMs: number;
  now?: Date;
}

/** Pending deliveries whose time has come. */
function pendingDue(nowIso: string): Filter {
  return {
    and: [
      { field: 'status', op: 'eq', value: 'pending' },
      { field: 'next_at', op: 'le', value: nowIso },
    ],
  };
}

/** Claimed deliveries whose lease has expired: their instance is gone. */
function expiredClaims(nowIso: string): Filter {
  return {
    and: [
      { field: 'status', op: 'eq', value: 'claimed' },
      { field: 'claimed_until', op: 'lt', value: nowIso },
    ],
  };
}

/** The due filter: pending and due, or claimed with an expired lease (its instance is gone). */
export function dueFilter(nowIso: string): Filter {
  return { or: [pendingDue(nowIso), expiredClaims(nowIso)] };
}

const BY_SEQUENCE = [
  { field: 'sequence', dir: 'asc' as const },
  { field: 'id', dir: 'asc' as const },
];

function bySequence(a: Delivery, b: Delivery): number {
  return a.sequence - b.sequence || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function lock(ds: Datasource, filter: Filter, tx: Transaction, top: number): Promise<DbRecord[]> {
  return ds.lockRows!(DELIVERY_TABLE, { filter, sort: BY_SEQUENCE, top }, tx, { skipLocked: true });
}

/**
 * The first `top` due rows after `last`, locked. The two kinds of due rows are read apart, each
 * along the (status, sequence, id) index, so a read stops after `top` rows however long the
 * backlog: an OR of both would make the store gather every due row to sort them.
 */
async function lockDue(ds: Datasource, nowIso: string, tx: Transaction, top: number, last?: Delivery): Promise<Delivery[]> {
  const after: Filter[] = last
    ? [
        {
          or: [
            { field: 'sequence', op: 'gt', value: last.sequence },
            {
              and: [
                { field: 'sequence', op: 'eq', value: last.sequence },
                { field: 'id', op: 'gt', value: last.id },
              ],
            },
          ],
        },
      ]
    : [];
  const pending = await lock(ds, { and: [pendingDue(nowIso), ...after] }, tx, top);
  const expired = await lock(ds, { and: [expiredClaims(nowIso), ...after] }, tx, top);
  return [...pending, ...expired].map(fromDeliveryRow).sort(bySequence).slice(0, top);
}

/** Sets the same values on the deliveries named, in one statement. */
function updateIds(ds: Datasource, ids: string[], data: DbRecord, tx: Transaction): Promise<number> {
  if (ids.length === 0) return Promise.resolve(0);
  return ds.updateWhere!(DELIVERY_TABLE, { field: 'id', op: 'in', value: ids }, data, tx);
}

export interface Claimed {
  /** The deliveries claimed (as claimed), in sequence order. */
  claimed: Delivery[];
  /** Due deliveries found but left, blocked by an earlier one of their key or beyond the batch. */
  left: boolean;
}

/** Claims up to `batch` due deliveries the ordering allows. */
export async function claimDue(ds: Datasource, options: ClaimOptions): Promise<Claimed> {
  const now = options.now ?? new Date();
  const nowIso = now.toISOString();
  const until = new Date(now.getTime() + options.leaseMs).toISOString();
  return retryingTransaction(ds, async (tx) => {
    const candidates: Delivery[] = [];
    let eligible: Delivery[] = [];
    let last: Delivery | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      // After a page whose rows were all blocked (a key waiting for a retry, with a backlog behind
      // it), the next page: one stuck key must not starve every other key.
      const rows = await lockDue(ds, nowIso, tx, options.batch, last);
      candidates.push(...rows);
      if (candidates.length > 0) eligible = await mayRunNow(ds, candidates, tx);
      if (eligible.length >= options.batch || rows.length < options.batch) break;
      last = rows[rows.length - 1];
    }
    const chosen = eligible.sort(bySequence).slice(0, options.batch);
    const claim = { status: 'claimed' as const, claimed_by: options.instanceId, claimed_until: until, updated_at: nowIso };
    await updateIds(
      ds,
      chosen.map((d) => d.id),
      claim,
      tx,
    );
    return {
      claimed: chosen.map((d) => ({ ...d, status: claim.status, claimedBy: options.instanceId, claimedUntil: until, updatedAt: nowIso })),
      // A full batch may have more due behind it.
      left: candidates.length > chosen.length || chosen.length >= options.batch,
    };
  });
}

/**
 * The candidates the order of their keys lets run now: those with no earlier delivery of their key
 * still to run (pending or claimed) other than candidates themselves. One query for every key.
 */
export async function mayRunNow<T extends OrderedRow>(ds: Datasource, candidates: T[], tx: Transaction): Promise<T[]> {
  if (candidates.length === 0) return [];
  const active = await ds.find(
    DELIVERY_TABLE,
    {
      filter: {
        and: [
          { field: 'ordering_key', op: 'in', value: [...new Set(candidates.map((c) => c.orderingKey))] },
          { field: 'status', op: 'in', value: ['pending', 'claimed'] },
          { field: 'sequence', op: 'lt', value: Math.max(...candidates.map((c) => c.sequence)) },
        ],
      },
      fields: ['id', 'ordering_key', 'sequence'],
    },
    tx,
  );
  return eligibleRows(
    candidates,
    active.map((r) => ({ id: String(r.id), orderingKey: String(r.ordering_key), sequence: Number(r.sequence) })),
  );
}

function ownedFilter(ids: string[], instanceId: string): Filter {
  return {
    and: [
      { field: 'id', op: 'in', value: ids },
      { field: 'status', op: 'eq', value: 'claimed' },
      { field: 'claimed_by', op: 'eq', value: instanceId },
    ],
  };
}

/** Extends the lease of the deliveries still claimed by this instance; returns the ids it still holds. */
export async function renewClaims(ds: Datasource, ids: string[], instanceId: string, leaseMs: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const now = new Date();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  return retryingTransaction(ds, async (tx) => {
    const held = await lockOwned(ds, ids, instanceId, tx);
    await updateIds(ds, [...held], { claimed_until: until, updated_at: now.toISOString() }, tx);
    return held;
  });
}

/** The ids of these deliveries that this instance still holds, locked until `tx` ends. */
async function lockOwned(ds: Datasource, ids: string[], instanceId: string, tx: Transaction): Promise<Set<string>> {
  // Waits for a lock rather than skipping it: a row of ours another transaction holds is being
  // claimed over (expired lease), and its outcome decides whether it is still ours.
  const rows = await ds.lockRows!(DELIVERY_TABLE, { filter: ownedFilter(ids, instanceId), fields: ['id'] }, tx);
  return new Set(rows.map((row) => String(row.id)));
}

/**
 * Writes a delivery's outcome if this instance still holds its claim: returns false (and writes
 * nothing) when the claim was lost (expired and taken by another instance, or changed by an admin).
 */
export async function settle(ds: Datasource, id: string, instanceId: string, data: DbRecord): Promise<boolean> {
  return (await settleMany(ds, instanceId, [{ id, data }])).has(id);
}

/**
 * The outcomes of several deliveries in one transaction (one commit, where each would cost one;
 * one statement per distinct outcome): writes those this instance still holds and returns their ids.
 * Nearly always every one is still held, so each statement first changes only rows still claimed by
 * this instance; when some were not, that transaction is undone and the outcomes written again
 * after locking the rows to learn which are still held.
 */
export async function settleMany(
  ds: Datasource,
  instanceId: string,
  outcomes: Array<{ id: string; data: DbRecord }>,
): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const at = new Date().toISOString();
  const groups = (owned?: Set<string>) => {
    const alike = new Map<string, { data: DbRecord; ids: string[] }>();
    for (const { id, data } of outcomes) {
      if (owned && !owned.has(id)) continue;
      const key = JSON.stringify(data);
      const group = alike.get(key) ?? { data: { claimed_by: null, claimed_until: null, updated_at: at, ...data }, ids: [] };
      group.ids.push(id);
      alike.set(key, group);
    }
    return [...alike.values()];
  };
  const lost = new Error('a claim was lost');
  try {
    return await retryingTransaction(ds, async (tx) => {
      let changed = 0;
      for (const { data, ids } of groups()) changed += await ds.updateWhere!(DELIVERY_TABLE, ownedFilter(ids, instanceId), data, tx);
      if (changed !== outcomes.length) throw lost;
      return new Set(outcomes.map((o) => o.id));
    });
  } catch (err) {
    if (err !== lost) throw err;
  }
  return retryingTransaction(ds, async (tx) => {
    const owned = await lockOwned(
      ds,
      outcomes.map((o) => o.id),
      instanceId,
      tx,
    );
    for (const { data, ids } of groups(owned)) await updateIds(ds, ids, data, tx);
    return owned;
  });
}

/** Gives back claimed deliveries that were not started: pending again, due as they were. */
export async function release(ds: Datasource, ids: string[], instanceId: string): Promise<void> {
  if (ids.length === 0) return;
  await retryingTransaction(ds, async (tx) => {
    const owned = await lockOwned(ds, ids, instanceId, tx);
    await updateIds(ds, [...owned], { status: 'pending', claimed_by: null, claimed_until: null, updated_at: new Date().toISOString() }, tx);
  });
}

/** Attempts of a claim transaction the store rolled back to break a deadlock (SERVICE_UNAVAILABLE) before giving up. */
const TRANSACTION_ATTEMPTS = 4;

/**
 * A transaction run again when the store rolled it back as a deadlock victim or found it
 * unavailable for a moment: MariaDB's next-key locks make two instances' claims and settlements
 * deadlock now and then. Giving up on a settlement would leave a delivered action claimed, to run
 * again once its lease expires.
 *
 * Not durable (TransactionOptions): the commit waits for no disk flush. A claim, renewal, release
 * or outcome that a crash of the store undoes leaves the delivery as it was before, to be claimed
 * and run again: at least once still holds. On PostgreSQL this keeps the dispatcher's commits
 * from queueing for the disk beside the writes' own.
 */
export async function retryingTransaction<T>(ds: Datasource, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ds.transaction(fn, { durable: false });
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !(err instanceof ObjectQLError && err.code === 'SERVICE_UNAVAILABLE')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
    }
  }
}
