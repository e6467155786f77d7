/**
 * A piece of SQL with its bindings, for knex.raw: `??` stands for an identifier (quoted by knex
 * per dialect), `?` for a value. Fragments never contain a literal question mark.
 */
export interface Frag {
  sql: string;
  bindings: unknown[];
}

export function frag(sql: string, bindings: unknown[] = []): Frag {
  return { sql, bindings };
}

/** An identifier: a column, or `table.column`. */
export function ident(name: string): Frag {
  return { sql: '??', bindings: [name] };
}

export const TRUE: Frag = frag('1 = 1');
export const FALSE: Frag = frag('1 = 0');

/** Joins fragments with a separator (`AND`, `OR`, `,`), wrapping the result in parentheses when asked. */
export function join(parts: Frag[], separator: string, wrap = false): Frag {
  const sql = parts.map((p) => p.sql).join(` ${separator} `);
  return { sql: wrap ? `(${sql})` : sql, bindings: parts.flatMap((p) => p.bindings) };
}

/**
 * Tagged template: `sql\`${a} = ${b}\`` where each interpolation is a Frag (inlined with its
 * bindings) or a value (bound as `?`).
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Frag {
  let text = strings[0];
  const bindings: unknown[] = [];
  values.forEach((value, i) => {
    if (isFrag(value)) {
      text += value.sql;
      bindings.push(...value.bindings);
    } else {
      text += '?';
      bindings.push(value);
    }
    text += strings[i + 1];
  });
  return { sql: text, bindings };
}

function isFrag(value: unknown): value is Frag {
  return typeof value === 'object' && value !== null && typeof (value as Frag).sql === 'string' && Array.isArray((value as Frag).bindings);
}
