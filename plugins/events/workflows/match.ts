/**
 * Whether a record trigger fires for one committed change. Pure: the same trigger and event give
 * the same answer, except for `$now` / `$today` in a condition, which read the clock.
 * - the object and the operation must be the trigger's;
 * - `condition` (the spec's filter language) holds on the record after the change (before it, for
 *   a delete), with the kernel's in-memory evaluator, the one the memory driver filters with.
 *   Special values: `$now`, `$today`, and `$current_user` (the id of the user who made the change);
 * - `changed`: one of these fields is among the event's fields (changed by an update, set by a create);
 * - `from`: the previous values (updates only: a create or a delete never matches a `from`);
 * - `to`: the record's values.
 */
import { evaluateFilter, valuesEqual, type Condition, type Filter } from '../../../kernel';
import { parseFilter } from '../../../kernel/protocol';
import type { RecordTrigger, StoredEvent } from '../types';

/** Conditions parsed once per trigger (a trigger is not changed once loaded). */
const parsed = new WeakMap<RecordTrigger, Filter | undefined>();

function conditionOf(trigger: RecordTrigger): Filter | undefined {
  if (trigger.condition === undefined || trigger.condition === null) return undefined;
  if (!parsed.has(trigger)) parsed.set(trigger, parseFilter(trigger.condition));
  return parsed.get(trigger);
}

export function matchesTrigger(trigger: RecordTrigger, event: StoredEvent): boolean {
  if (trigger.object !== event.object || !trigger.events.includes(event.operation)) return false;
  if (trigger.changed && !trigger.changed.some((f) => event.fields.includes(f))) return false;
  if (trigger.from) {
    if (event.operation !== 'updated' || !event.previous) return false;
    const previous = event.previous;
    if (!Object.entries(trigger.from).every(([field, value]) => sameValue(previous[field], value))) return false;
  }
  if (trigger.to && !Object.entries(trigger.to).every(([field, value]) => sameValue(event.record[field], value))) return false;
  const filter = conditionOf(trigger);
  if (filter && !evaluateFilter(resolveSpecials(filter, { now: new Date(), userId: event.userId }), recordOf(event))) return false;
  return true;
}

/** The record a condition is evaluated on, with its id. */
function recordOf(event: StoredEvent): Record<string, unknown> {
  return event.record.id === undefined ? { ...event.record, id: event.recordId } : event.record;
}

/** Equal as the evaluator's `eq` compares; null and a missing value are the same. */
function sameValue(actual: unknown, expected: unknown): boolean {
  if (expected === null || expected === undefined) return actual === null || actual === undefined;
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length && expected.every((v, i) => valuesEqual(actual[i], v));
  return valuesEqual(actual, expected);
}

interface Specials {
  now: Date;
  userId?: string;
}

const SPECIAL = /^\$(now|today|current_user)$/;

function resolveSpecial(value: unknown, specials: Specials): unknown {
  if (typeof value !== 'string' || !SPECIAL.test(value)) return value;
  if (value === '$now') return specials.now.toISOString();
  if (value === '$today') return specials.now.toISOString().slice(0, 10);
  return specials.userId ?? null;
}

function resolveSpecials(filter: Filter, specials: Specials): Filter {
  if ('and' in filter) return { and: filter.and.map((f) => resolveSpecials(f, specials)) };
  if ('or' in filter) return { or: filter.or.map((f) => resolveSpecials(f, specials)) };
  if ('not' in filter) return { not: resolveSpecials(filter.not, specials) };
  if ('ref' in filter) return filter;
  const c: Condition = filter;
  const value = Array.isArray(c.value) ? c.value.map((v) => resolveSpecial(v, specials)) : resolveSpecial(c.value, specials);
  if (c.op === 'eq' && value === null && c.value !== null) return { field: c.field, op: 'isnull', value: true };
  return value === c.value ? c : { ...c, value };
}
