/**
 * The deliveries table `objectql_delivery`, kept in each outbox datasource beside the events it
 * carries: one row per action of a workflow for one event (or one scheduled minute). The plugin syncs
 * it itself and never registers it as an object (no protocol serves it, no permission applies).
 *
 * Times are ISO 8601 text (`toISOString()`, always 24 characters), not datetime columns: they come
 * back exactly as written on every driver and compare in time order as text, which is what the
 * claim's `next_at <= now` and `claimed_until < now` need.
 */
import { storageField as field, storageTable, type DbRecord, type ObjectDefinition } from '../../../kernel';
import type { Delivery, DeliveryStatus, NewDelivery, Preclaim } from '../types';

export const DELIVERY_TABLE = 'objectql_delivery';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'claimed', 'done', 'dead', 'discarded'];

/** The longest `last_error` kept. */
export const MAX_ERROR_LENGTH = 2000;

/** The deliveries table of one datasource (to sync with the outbox's own tables). Its `id` is the idempotency key sent with the action. */
export function deliveryTables(datasource = 'default'): ObjectDefinition[] {
  const fields = [
    field('workflow', 'text'),
    field('action', 'number'),
    field('ordering_key', 'text'),
    field('sequence', 'number'),
    field('status', 'text'),
    field('attempts', 'number'),
    field('next_at', 'text'),
    field('claimed_by', 'text'),
    field('claimed_until', 'text'),
    field('last_error', 'textarea'),
    field('payload', 'json'),
    field('created_at', 'text', { index: true }),
    field('updated_at', 'text'),
  ];
  // Every index is written by every insert (and by the status changes of every delivery), so there
  // are only these: the claim walks a status in sequence order; the ordering check reads a key's rows
  // by sequence; the admin list and the pruning go by created_at (the field's own).
  return [
    storageTable(DELIVERY_TABLE, datasource, fields, [
      { name: 'objectql_delivery_status_sequence', fields: ['status', 'sequence', 'id'], unique: false },
      { name: 'objectql_delivery_key_sequence', fields: ['ordering_key', 'sequence', 'id'], unique: false },
    ]),
  ];
}

/** A new delivery's row: pending, due now; or already claimed by this instance. */
export function newDeliveryRow(delivery: NewDelivery, now: Date, claim?: Preclaim): DbRecord {
  const at = now.toISOString();
  return {
    id: delivery.id,
    workflow: delivery.workflow,
    action: delivery.action,
    ordering_key: delivery.orderingKey,
    sequence: delivery.sequence,
    status: claim ? 'claimed' : 'pending',
    attempts: 0,
    next_at: at,
    claimed_by: claim?.instanceId ?? null,
    claimed_until: claim?.until ?? null,
    last_error: null,
    payload: delivery.payload,
    created_at: at,
    updated_at: at,
  };
}

/** A row as a Delivery. */
export function fromDeliveryRow(row: DbRecord): Delivery {
  const text = (v: unknown) =>
    v == null ? undefined : v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : JSON.stringify(v);
  const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as unknown) : row.payload;
  const delivery: Delivery = {
    id: String(row.id),
    workflow: String(row.workflow),
    action: Number(row.action),
    orderingKey: String(row.ordering_key),
    sequence: Number(row.sequence),
    status: String(row.status) as DeliveryStatus,
    attempts: Number(row.attempts ?? 0),
    nextAt: text(row.next_at) ?? '',
    payload: payload && typeof payload === 'object' ? payload : {},
    createdAt: text(row.created_at) ?? '',
    updatedAt: text(row.updated_at) ?? '',
  };
  const claimedBy = text(row.claimed_by);
  const claimedUntil = text(row.claimed_until);
  const lastError = text(row.last_error);
  if (claimedBy !== undefined) delivery.claimedBy = claimedBy;
  if (claimedUntil !== undefined) delivery.claimedUntil = claimedUntil;
  if (lastError !== undefined) delivery.lastError = lastError;
  return delivery;
}

/** An error's message, short enough for `last_error`. */
export function errorText(err: unknown, max = MAX_ERROR_LENGTH): string {
  const message = err instanceof Error ? err.message || err.name : String(err);
  return message.length > max ? `${message.slice(0, max - 1)}…` : message;
}
