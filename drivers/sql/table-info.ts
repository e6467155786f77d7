/**
 * What the driver precomputes per object at schema sync: its table, stored columns and their
 * families, and the indexes metadata asks for (with the names they get, which unique violations
 * are mapped back through).
 */
import { createHash } from 'node:crypto';
import type { FieldDefinition, ObjectDefinition } from '../../kernel';
import { decimalSpec, type DecimalSpec } from './decimal';
import type { SqlDialect } from './dialects/base';
import { storageFamily, type StorageFamily } from './values';

export interface IndexPlan {
  name: string;
  fields: string[];
  unique: boolean;
}

export interface TableInfo {
  readonly object: string;
  readonly table: string;
  /** Stored columns, `id` first: every field of the object. */
  readonly columns: readonly string[];
  readonly families: ReadonlyMap<string, StorageFamily>;
  readonly indexes: readonly IndexPlan[];
  /** Index (or primary key) name → the fields it makes unique. */
  readonly unique: ReadonlyMap<string, readonly string[]>;
  readonly field: (name: string) => FieldDefinition | undefined;
  family(name: string): StorageFamily;
  /** The table's decimal columns as schema sync found them (precision, scale). */
  readonly decimalColumns: Map<string, DecimalSpec>;
  /**
   * What a number written to this column must fit, exactly: the column's own decimal type, else
   * the decimal field's (the same bound on every engine); undefined when nothing bounds it.
   */
  decimalLimit(name: string): DecimalSpec | undefined;
}

/** `<table>_<part>…`, shortened with a hash when longer than the engine keeps. */
export function indexName(table: string, parts: string[], max: number): string {
  const raw = [table, ...parts].join('_');
  if (raw.length <= max) return raw;
  const hash = createHash('sha1').update(raw).digest('hex').slice(0, 8);
  return `${raw.slice(0, max - 9)}_${hash}`;
}

/** The primary key's constraint name (PostgreSQL reports it in unique violations). */
export function primaryKeyName(table: string, max: number): string {
  return indexName(table, ['pkey'], max);
}

/** Indexes for `index: true`, `unique: true` and the object's `indexes:`. */
export function planIndexes(def: ObjectDefinition, dialect: SqlDialect): IndexPlan[] {
  const table = def.name;
  const plans = new Map<string, IndexPlan>();
  const add = (plan: IndexPlan) => {
    if (!plans.has(plan.name)) plans.set(plan.name, plan);
  };
  for (const [name, field] of Object.entries(def.fields)) {
    if (name === 'id') continue;
    if (field.unique) add({ name: indexName(table, [name, 'unique'], dialect.maxIdentifier), fields: [name], unique: true });
    else if (field.index) add({ name: indexName(table, [name, 'index'], dialect.maxIdentifier), fields: [name], unique: false });
  }
  for (const index of def.indexes ?? []) {
    if (index.fields.length === 0) continue;
    const base = index.name.startsWith(`${table}_`) ? index.name.slice(table.length + 1) : index.name;
    add({ name: indexName(table, [base], dialect.maxIdentifier), fields: [...index.fields], unique: Boolean(index.unique) });
  }
  return [...plans.values()];
}

export function tableInfo(def: ObjectDefinition, dialect: SqlDialect): TableInfo {
  const fields = def.fields;
  const columns = ['id', ...Object.keys(fields).filter((f) => f !== 'id')];
  const families = new Map<string, StorageFamily>(columns.map((c) => [c, c === 'id' ? 'text' : storageFamily(fields[c])]));
  const indexes = planIndexes(def, dialect);
  const unique = new Map<string, readonly string[]>([
    [primaryKeyName(def.name, dialect.maxIdentifier), ['id']],
    ['PRIMARY', ['id']],
  ]);
  for (const plan of indexes) if (plan.unique) unique.set(plan.name, plan.fields);
  const field = (name: string) => (Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined);
  const decimalColumns = new Map<string, DecimalSpec>();
  return {
    object: def.name,
    table: def.name,
    columns,
    families,
    indexes,
    unique,
    field,
    family: (name) => families.get(name) ?? 'text',
    decimalColumns,
    decimalLimit: (name) => decimalColumns.get(name) ?? decimalSpec(field(name)),
  };
}
