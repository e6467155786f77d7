/**
 * The outbox's tables, kept in each outbox datasource beside the records they describe, so that an
 * event is written in the very transaction of its change. The plugin syncs them itself and never
 * registers them as objects (no protocol serves them, no permission applies):
 *
 * - `objectql_event`: one row per committed change, numbered by `position` (1, 2, 3... per
 *   datasource, in commit order);
 * - `objectql_event_counter`: row 'feed' holds the last position handed out. A write locks it
 *   until it commits, which is what makes positions follow commit order without gaps. Row
 *   'fanout' holds the last position whose deliveries were made (delivery/fanout.ts).
 */
import { storageField as field, storageTable, type DataRecord, type DbRecord, type ObjectDefinition } from '../../kernel';
import type { Operation, StoredEvent } from './types';

export const EVENT_TABLE = 'objectql_event';
export const COUNTER_TABLE = 'objectql_event_counter';
/** The counter row's id. */
export const FEED_COUNTER = 'feed';
/** The fan-out cursor's row id. */
export const FANOUT_CURSOR = 'fanout';

/** The event table of one datasource. */
export function eventTable(datasource: string): ObjectDefinition {
  return storageTable(
    EVENT_TABLE,
    datasource,
    [
      field('position', 'number', { unique: true }),
      field('object', 'text'),
      field('record_id', 'text'),
      field('operation', 'text'),
      field('fields', 'json'),
      field('record', 'json'),
      field('previous', 'json'),
      field('user_id', 'text'),
      field('request_id', 'text'),
      // Not indexed: retention finds the expired events by position (retention.ts).
      field('at', 'datetime'),
    ],
    // The feed of one object reads its events in position order.
    [{ name: 'objectql_event_object_position', fields: ['object', 'position'], unique: false }],
  );
}

/** The counter table of one datasource. */
export function counterTable(datasource: string): ObjectDefinition {
  return storageTable(COUNTER_TABLE, datasource, [field('value', 'number')]);
}

/** Both outbox tables of one datasource. */
export function outboxTables(datasource: string): ObjectDefinition[] {
  return [eventTable(datasource), counterTable(datasource)];
}

/** An event as stored (its row id is its position). */
export function toRow(event: StoredEvent): DbRecord {
  return {
    id: String(event.position),
    position: event.position,
    object: event.object,
    record_id: event.recordId,
    operation: event.operation,
    fields: event.fields,
    record: event.record,
    previous: event.previous ?? null,
    user_id: event.userId ?? null,
    request_id: event.requestId ?? null,
    at: event.at,
  };
}

/** An event as read back from the datasource named. */
export function fromRow(datasource: string, row: DbRecord): StoredEvent {
  const event: StoredEvent = {
    position: Number(row.position),
    datasource,
    object: String(row.object),
    recordId: String(row.record_id),
    operation: String(row.operation) as Operation,
    fields: Array.isArray(row.fields) ? row.fields.map(String) : [],
    record: isRecord(row.record) ? row.record : {},
    at: row.at instanceof Date ? row.at.toISOString() : String(row.at),
  };
  if (isRecord(row.previous)) event.previous = row.previous;
  if (typeof row.user_id === 'string') event.userId = row.user_id;
  if (typeof row.request_id === 'string') event.requestId = row.request_id;
  return event;
}

function isRecord(value: unknown): value is DataRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
