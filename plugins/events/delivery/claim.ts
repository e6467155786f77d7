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
 *   is still claimed by this instance: a claim lost to another instance is left alone.
 *
 * Pending deliveries are rows, written in the transaction of their event: they survive any restart.
 */
import { ObjectQLError, type Datasource, type DbRecord, type Filter, type Transaction } from '../../../kernel';
import type { Delivery } from '../types';
import { eligibleRows } from './eligible';
import { DELIVERY_TABLE, fromDeliveryRow } from './table';

/** Pages of due rows a claim reads at most while earlier ones are all blocked by their key's order. */
const MAX_PAGES = 5;

export interface ClaimOptions {
  instanceId: string;
  batch: number;
  leaseMs: number;
  now?: Date;
}

/** The due filter: pending and due, or claimed with an expired lease (its instance is gone). */
export function dueFilter(nowIso: string): Filter {
  return {
    or: [
      {
        and: [
          { field: 'status', op: 'eq', value: 'pending' },
          { field: 'next_at', op: 'le', value: nowIso },
        ],
      },
      {
        and: [
          { field: 'status', op: 'eq', value: 'claimed' },
          { field: 'claimed_until', op: 'lt', value: nowIso },
        ],
      },
    ],
  };
}

function lock(ds: Datasource, filter: Filter, tx: Transaction, top?: number): Promise<DbRecord[]> {
  const query = {
    filter,
    sort: [
      { field: 'sequence', dir: 'asc' as const },
      { field: 'id', dir: 'asc' as const },
    ],
    ...(top ? { top } : {}),
  };
  return ds.lockRows ? ds.lockRows(DELIVERY_TABLE, query, tx, { skipLocked: true }) : ds.find(DELIVERY_TABLE, query, tx);
}

/** Claims up to `batch` due deliveries the ordering allows; returns them (as claimed), in sequence order. */
export async function claimDue(ds: Datasource, options: ClaimOptions): Promise<Delivery[]> {
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
      const rows = (await lock(ds, { and: [dueFilter(nowIso), ...after] }, tx, options.batch)).map(fromDeliveryRow);
      candidates.push(...rows);
      if (candidates.length > 0) {
        // Earlier deliveries of the same keys that are still to run: one query for every key.
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
        eligible = eligibleRows(
          candidates,
          active.map((r) => ({ id: String(r.id), orderingKey: String(r.ordering_key), sequence: Number(r.sequence) })),
        );
      }
      if (eligible.length >= options.batch || rows.length < options.batch) break;
      last = rows[rows.length - 1];
    }
    const chosen = eligible.sort((a, b) => a.sequence - b.sequence || (a.id < b.id ? -1 : 1)).slice(0, options.batch);
    const claimed: Delivery[] = [];
    for (const d of chosen) {
      const row = await ds.update(
        DELIVERY_TABLE,
        d.id,
        { status: 'claimed', claimed_by: options.instanceId, claimed_until: until, updated_at: nowIso },
        tx,
      );
      if (row) claimed.push(fromDeliveryRow(row));
    }
    return claimed;
  });
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
    const held = new Set<string>();
    for (const row of await lockOwned(ds, ids, instanceId, tx)) {
      await ds.update(DELIVERY_TABLE, String(row.id), { claimed_until: until, updated_at: now.toISOString() }, tx);
      held.add(String(row.id));
    }
    return held;
  });
}

function lockOwned(ds: Datasource, ids: string[], instanceId: string, tx: Transaction): Promise<DbRecord[]> {
  const query = { filter: ownedFilter(ids, instanceId), fields: ['id'] };
  // Waits for a lock rather than skipping it: a row of ours another transaction holds is being
  // claimed over (expired lease), and its outcome decides whether it is still ours.
  return ds.lockRows ? ds.lockRows(DELIVERY_TABLE, query, tx) : ds.find(DELIVERY_TABLE, query, tx);
}

/**
 * Writes a delivery's outcome if this instance still holds its claim: returns false (and writes
 * nothing) when the claim was lost (expired and taken by another instance, or changed by an admin).
 */
export async function settle(ds: Datasource, id: string, instanceId: string, data: DbRecord): Promise<boolean> {
  return (await settleMany(ds, instanceId, [{ id, data }])).has(id);
}

/**
 * The outcomes of several deliveries in one transaction (one commit, where each would cost one):
 * writes those this instance still holds and returns their ids.
 */
export async function settleMany(
  ds: Datasource,
  instanceId: string,
  outcomes: Array<{ id: string; data: DbRecord }>,
): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  return retryingTransaction(ds, async (tx) => {
    const owned = new Set(
      (
        await lockOwned(
          ds,
          outcomes.map((o) => o.id),
          instanceId,
          tx,
        )
      ).map((row) => String(row.id)),
    );
    const at = new Date().toISOString();
    for (const { id, data } of outcomes) {
      if (owned.has(id)) await ds.update(DELIVERY_TABLE, id, { claimed_by: null, claimed_until: null, updated_at: at, ...data }, tx);
    }
    return owned;
  });
}

/** Gives back claimed deliveries that were not started: pending again, due as they were. */
export async function release(ds: Datasource, ids: string[], instanceId: string): Promise<void> {
  if (ids.length === 0) return;
  await retryingTransaction(ds, async (tx) => {
    const at = new Date().toISOString();
    for (const row of await lockOwned(ds, ids, instanceId, tx)) {
      await ds.update(DELIVERY_TABLE, String(row.id), { status: 'pending', claimed_by: null, claimed_until: null, updated_at: at }, tx);
    }
  });
}

/** Attempts of a claim transaction the store rolled back to break a deadlock (SERVICE_UNAVAILABLE) before giving up. */
const TRANSACTION_ATTEMPTS = 4;

/**
 * A transaction run again when the store rolled it back as a deadlock victim or found it
 * unavailable for a moment: MariaDB's next-key locks make two instances' claims and settlements
 * deadlock now and then. Giving up on a settlement would leave a delivered action claimed, to run
 * again once its lease expires.
 */
async function retryingTransaction<T>(ds: Datasource, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ds.transaction(fn);
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !(err instanceof ObjectQLError && err.code === 'SERVICE_UNAVAILABLE')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
    }
  }
}
