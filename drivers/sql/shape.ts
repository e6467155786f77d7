/**
 * The shape of a statement: everything its SQL text depends on (kind, table, columns, the SQL and
 * identifiers of its fragments, which clauses it has) as a key, and apart from it the values it
 * binds. Two queries of one shape differ only in their values, so the SQL knex wrote for the
 * first serves the second (statements.ts).
 */
import type { Knex } from 'knex';
import type { Frag } from './fragment';

/** How a value slot is checked before a cached statement binds it (see Statements.run). */
export type SlotKind = 'value' | 'int' | 'text';

export interface Shape {
  readonly key: string;
  readonly values: readonly unknown[];
  readonly kinds: readonly SlotKind[];
  /** False when a value cannot go into a cached statement (its SQL would differ); knex builds it then. */
  readonly cacheable: boolean;
  /** The knex query for these values (the shape's own, or probes standing for them). */
  build(values: readonly unknown[]): Knex.QueryBuilder;
}

const SEPARATOR = '\u0000';
const PLACEHOLDER = /\?\??/g;

/** Collects a shape's key and values while its query is described. */
export class ShapeParts {
  private readonly parts: string[];
  readonly values: unknown[] = [];
  readonly kinds: SlotKind[] = [];
  cacheable = true;

  constructor(kind: string, table: string) {
    this.parts = [kind, table];
  }

  /** Text the SQL depends on (a flag, an identifier). */
  text(part: string): void {
    this.parts.push(part);
  }

  /** A list of identifiers the SQL names (columns). */
  names(list: readonly string[]): void {
    this.parts.push(String(list.length), ...list);
  }

  /**
   * A fragment: its SQL and identifiers (`??`) go into the key, its values (`?`) into the list.
   * Returns the fragment as rebuilt from any list of values (the real ones, or probes).
   */
  frag(f: Frag | undefined): (values: readonly unknown[]) => Frag | undefined {
    if (!f) {
      this.parts.push('');
      return () => undefined;
    }
    const start = this.values.length;
    const slots: number[] = [];
    // The SQL first: it says how many identifiers follow, so no two shapes share a key.
    this.parts.push(f.sql);
    let i = 0;
    for (const match of f.sql.matchAll(PLACEHOLDER)) {
      if (match[0] === '?') {
        slots.push(i);
        this.push(f.bindings[i], 'value');
      } else this.parts.push(String(f.bindings[i]));
      i++;
    }
    if (slots.length === 0) return () => f;
    return (values) => {
      const bindings = f.bindings.slice();
      slots.forEach((slot, j) => (bindings[slot] = values[start + j]));
      return { sql: f.sql, bindings };
    };
  }

  /**
   * One value; returns its index in the list. `int`: a limit or offset; `text`: a value knex
   * compares with `=`. Where it goes in the SQL is for the caller's text() to say.
   */
  value(value: unknown, kind: SlotKind = 'value'): number {
    return this.push(value, kind);
  }

  shape(build: (values: readonly unknown[]) => Knex.QueryBuilder): Shape {
    return { key: this.parts.join(SEPARATOR), values: this.values, kinds: this.kinds, cacheable: this.cacheable, build };
  }

  private push(value: unknown, kind: SlotKind): number {
    if (!fits(value, kind)) this.cacheable = false;
    this.kinds.push(kind);
    return this.values.push(value) - 1;
  }
}

/**
 * Values knex binds as they are whatever they hold: primitives and null (objects, arrays, dates,
 * raw SQL and undefined it may spread, inline or refuse). A limit or offset is a non-negative
 * integer (knex rounds others), an id compared with `=` a string (knex writes `IS NULL` for null).
 */
function fits(value: unknown, kind: SlotKind): boolean {
  switch (kind) {
    case 'int':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'text':
      return typeof value === 'string';
    default: {
      const type = typeof value;
      return value === null || type === 'string' || type === 'number' || type === 'boolean' || type === 'bigint';
    }
  }
}
