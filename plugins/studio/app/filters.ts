/**
 * The list's filter builder in the spec's filter language: conditions per field type, free-text
 * search over the text fields, and the view's own filter, joined with 'and'.
 */
import type { Condition, FieldDescriptor, FilterExpr } from './types';

export interface Operator {
  /** What the URL and the builder keep. */
  id: string;
  label: string;
  /** The spec's operator. */
  op: string;
  /** How many values it takes: none (empty / not empty), one, two (between) or a list (in). */
  arity: 0 | 1 | 2 | 'list';
}

const EQ: Operator = { id: 'eq', label: 'is', op: '=', arity: 1 };
const NE: Operator = { id: 'ne', label: 'is not', op: '!=', arity: 1 };
const EMPTY: Operator = { id: 'empty', label: 'is empty', op: '=', arity: 0 };
const NOT_EMPTY: Operator = { id: 'set', label: 'is not empty', op: '!=', arity: 0 };
const ORDERED: Operator[] = [
  EQ,
  NE,
  { id: 'gt', label: 'greater than', op: '>', arity: 1 },
  { id: 'ge', label: 'at least', op: '>=', arity: 1 },
  { id: 'lt', label: 'less than', op: '<', arity: 1 },
  { id: 'le', label: 'at most', op: '<=', arity: 1 },
  { id: 'between', label: 'between', op: 'between', arity: 2 },
  EMPTY,
  NOT_EMPTY,
];
const TEXTUAL: Operator[] = [
  { id: 'contains', label: 'contains', op: 'contains', arity: 1 },
  EQ,
  NE,
  { id: 'starts', label: 'starts with', op: 'startswith', arity: 1 },
  { id: 'ends', label: 'ends with', op: 'endswith', arity: 1 },
  EMPTY,
  NOT_EMPTY,
];

export const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone']);
const NUMBER_TYPES = new Set(['number', 'currency', 'percent', 'auto_number']);
const TIME_TYPES = new Set(['date', 'datetime', 'time']);

export function operatorsFor(field: FieldDescriptor): Operator[] {
  if (TEXT_TYPES.has(field.type)) return TEXTUAL;
  if (NUMBER_TYPES.has(field.type) || TIME_TYPES.has(field.type)) return ORDERED;
  switch (field.type) {
    case 'boolean':
      return [EQ];
    case 'select':
      return field.multiple
        ? [{ id: 'has', label: 'includes', op: 'contains', arity: 1 }, EMPTY, NOT_EMPTY]
        : [EQ, NE, { id: 'in', label: 'is one of', op: 'in', arity: 'list' }, EMPTY, NOT_EMPTY];
    case 'lookup':
    case 'master_detail':
      return [EQ, NE, EMPTY, NOT_EMPTY];
    case 'file':
    case 'image':
      return [NOT_EMPTY, EMPTY];
    default:
      return [];
  }
}

/** One row of the builder: a field, an operator id and its value(s) as typed. */
export interface BuilderCondition {
  field: string;
  op: string;
  value?: unknown;
}

function typed(field: FieldDescriptor, value: unknown): unknown {
  if (NUMBER_TYPES.has(field.type)) {
    const n = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(n) ? n : value;
  }
  if (field.type === 'boolean') return value === true || value === 'true';
  if (field.type === 'datetime' && typeof value === 'string' && value && !value.endsWith('Z')) {
    const time = Date.parse(value);
    return Number.isNaN(time) ? value : new Date(time).toISOString();
  }
  return value;
}

/** A builder row → the spec's condition; undefined while it is incomplete (no value typed yet). */
export function toCondition(row: BuilderCondition, fields: Map<string, FieldDescriptor>): Condition | undefined {
  const field = fields.get(row.field);
  const operator = field && operatorsFor(field).find((o) => o.id === row.op);
  if (!field || !operator) return undefined;
  if (operator.arity === 0) return [field.name, operator.op, null];
  if (operator.arity === 2) {
    const [low, high] = Array.isArray(row.value) ? (row.value as unknown[]) : [];
    if (low === undefined || low === '' || high === undefined || high === '') return undefined;
    return [field.name, 'between', [typed(field, low), typed(field, high)]];
  }
  if (operator.arity === 'list') {
    const list = Array.isArray(row.value) ? row.value : [];
    return list.length ? [field.name, 'in', list.map((v) => typed(field, v))] : undefined;
  }
  if (row.value === undefined || row.value === '') return field.type === 'boolean' ? [field.name, '=', false] : undefined;
  return [field.name, operator.op, typed(field, row.value)];
}

/** Joins filters (each a list in the spec's array form) with 'and', leaving out empty ones. */
export function and(...parts: Array<FilterExpr | undefined>): FilterExpr {
  const present = parts.filter((p): p is FilterExpr => !!p && p.length > 0);
  if (present.length <= 1) return present[0] ?? [];
  const out: FilterExpr = [];
  for (const part of present) {
    if (out.length) out.push('and');
    out.push(part);
  }
  return out;
}

/** The builder's complete rows, all of them holding. */
export function builderFilter(rows: BuilderCondition[], fields: Map<string, FieldDescriptor>): FilterExpr | undefined {
  const out: FilterExpr = [];
  for (const row of rows) {
    const condition = toCondition(row, fields);
    if (!condition) continue;
    if (out.length) out.push('and');
    out.push(condition);
  }
  return out.length ? out : undefined;
}

/** Free text over every readable text field: any of them contains it. */
export function searchFilter(text: string, fields: FieldDescriptor[]): FilterExpr | undefined {
  const query = text.trim();
  const searchable = fields.filter((f) => TEXT_TYPES.has(f.type));
  if (!query || !searchable.length) return undefined;
  const out: FilterExpr = [];
  for (const f of searchable) {
    if (out.length) out.push('or');
    out.push([f.name, 'contains', query]);
  }
  return out;
}

/** The builder's rows from the URL (`f`: JSON); anything unreadable is dropped. */
export function parseConditions(raw: string | undefined): BuilderCondition[] {
  if (!raw) return [];
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((r): r is unknown[] => Array.isArray(r) && typeof r[0] === 'string' && typeof r[1] === 'string')
      .map(([field, op, value]) => ({ field: field as string, op: op as string, value }));
  } catch {
    return [];
  }
}

export function formatConditions(rows: BuilderCondition[]): string | undefined {
  return rows.length ? JSON.stringify(rows.map((r) => (r.value === undefined ? [r.field, r.op] : [r.field, r.op, r.value]))) : undefined;
}
