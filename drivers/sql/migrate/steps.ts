/**
 * The steps of a schema migration: what `objectql migrate plan` lists, what a migration file holds
 * and what `objectql migrate apply` runs. Each step carries what it needs to run on any engine
 * (the fields' types, not SQL), so a file written against SQLite replays on PostgreSQL or MariaDB.
 */
import type { FieldDefinition, FieldType } from '../../../kernel';

/** What a column is made from: the storage-relevant part of a field. */
export interface ColumnSpec {
  name: string;
  type: FieldType;
  multiple?: boolean;
  scale?: number;
  max_length?: number;
}

export type MigrationStep =
  | { kind: 'create_table'; object: string; columns: ColumnSpec[] }
  | { kind: 'rename_column'; object: string; from: string; to: string }
  | { kind: 'add_column'; object: string; column: ColumnSpec }
  | { kind: 'change_type'; object: string; column: ColumnSpec; from: string; lossy: boolean; convertible: boolean }
  | { kind: 'backfill'; object: string; column: ColumnSpec; nulls: number; value?: unknown }
  | { kind: 'drop_column'; object: string; column: string }
  | { kind: 'create_index'; object: string; index: string; columns: ColumnSpec[]; unique: boolean };

/** The order steps run in: a rename before the type change or backfill of its column, drops after the copies they might feed. */
export const STEP_ORDER: ReadonlyArray<MigrationStep['kind']> = [
  'create_table',
  'rename_column',
  'add_column',
  'change_type',
  'backfill',
  'drop_column',
  'create_index',
];

export function sortSteps(steps: MigrationStep[]): MigrationStep[] {
  return [...steps].sort((a, b) => STEP_ORDER.indexOf(a.kind) - STEP_ORDER.indexOf(b.kind));
}

export function columnSpec(field: FieldDefinition): ColumnSpec {
  const spec: ColumnSpec = { name: field.name, type: field.type };
  if (field.multiple) spec.multiple = true;
  if (field.scale !== undefined) spec.scale = field.scale;
  if (field.max_length !== undefined) spec.max_length = field.max_length;
  return spec;
}

/** A field definition as much as the dialects read of one to type its column. */
export function specField(spec: ColumnSpec): FieldDefinition {
  return { label: spec.name, ...spec };
}

/** Destructive: drops stored values, or may change them (a type change the new type cannot hold exactly). */
export function isDestructive(step: MigrationStep): boolean {
  return step.kind === 'drop_column' || (step.kind === 'change_type' && step.lossy);
}

/** Steps that make the database "behind" the metadata: everything but a column no field maps to any more. */
export function isPending(step: MigrationStep): boolean {
  return step.kind !== 'drop_column';
}

function typeName(spec: ColumnSpec): string {
  return `${spec.type}${spec.multiple ? ' (multiple)' : ''}`;
}

/** One line of the plan, in words. */
export function describeStep(step: MigrationStep): string {
  switch (step.kind) {
    case 'create_table':
      return `create table '${step.object}' (${step.columns.length} columns)`;
    case 'rename_column':
      return `rename column '${step.object}.${step.from}' to '${step.to}' (renamed_from), keeping its values`;
    case 'add_column':
      return `add column '${step.object}.${step.column.name}' (${typeName(step.column)})`;
    case 'change_type':
      return (
        `change the type of '${step.object}.${step.column.name}' from ${step.from} to ${typeName(step.column)}` +
        (step.convertible
          ? step.lossy
            ? ' (values converted; some may lose precision or form)'
            : ' (values converted exactly)'
          : ' (no automatic conversion: migrate this column by hand)')
      );
    case 'backfill':
      return (
        `backfill required field '${step.object}.${step.column.name}': ${step.nulls} record(s) hold no value` +
        (step.value !== undefined
          ? ` (with ${JSON.stringify(step.value)})`
          : ` (needs --backfill ${step.object}.${step.column.name}=VALUE)`)
      );
    case 'drop_column':
      return `drop column '${step.object}.${step.column}': no field maps to it (its values are lost)`;
    case 'create_index':
      return `create ${step.unique ? 'unique ' : ''}index '${step.index}' on '${step.object}' (${step.columns.map((c) => c.name).join(', ')})`;
  }
}

/** `[safe]` or `[destructive]` and the step's words. */
export function formatStep(step: MigrationStep): string {
  return `${isDestructive(step) ? '[destructive]' : '[safe]       '} ${describeStep(step)}`;
}
