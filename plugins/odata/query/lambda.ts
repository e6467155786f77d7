/**
 * `any` / `all` over a multiple-valued property (`tags/any(t: t eq 'red')`) → the engine's
 * membership conditions on that field: on a multiple field `eq` / `in` hold when some value is
 * among those given, `ne` / `nin` when none is (kernel/query/evaluate.ts, drivers/sql/filter-sql.ts).
 * So `any` takes `t eq v` and `t in (...)` joined with `or`, `all` takes `t ne v`, `not (t eq v)`
 * and `not (t in (...))` joined with `and`; `any()` holds when the property has a value. Any other
 * condition on the values (`t gt 3`, `contains(t, 'x')`, `all(t: t eq 'x')`) has no engine form and
 * is refused naming the property.
 */
import type { FieldDefinition, Filter, RequestFilter } from '../../../kernel';
import { propertyError, type Source } from './errors';
import { NOTHING } from './filter-terms';
import type { Token } from './lexer';

export function valueLambda(
  src: Source,
  field: FieldDefinition,
  quantifier: 'any' | 'all',
  variable: string | undefined,
  body: RequestFilter | undefined,
  at: Token,
): Filter {
  if (body === undefined) return { field: field.name, op: 'isnull', value: false };
  const values = quantifier === 'any' ? anyValues(body) : allValues(body);
  if (!values) {
    const forms =
      quantifier === 'any'
        ? `${variable} eq <value> and ${variable} in (...) joined with 'or'`
        : `${variable} ne <value>, not (${variable} eq <value>) and not (${variable} in (...)) joined with 'and'`;
    throw propertyError(
      src,
      field.name,
      `${field.name}/${quantifier}(...) over a multiple-valued property takes ${forms} only; the values are tested for membership`,
      at.pos,
    );
  }
  const unique = [...new Set(values)];
  if (quantifier === 'any') {
    if (unique.length === 0) return NOTHING;
    return unique.length === 1 ? { field: field.name, op: 'eq', value: unique[0] } : { field: field.name, op: 'in', value: unique };
  }
  if (unique.length === 0) return { and: [] };
  return unique.length === 1 ? { field: field.name, op: 'ne', value: unique[0] } : { field: field.name, op: 'nin', value: unique };
}

/** The values `any` holds for: eq / in, or-ed. */
function anyValues(f: RequestFilter): unknown[] | undefined {
  if ('or' in f) return gather(f.or, anyValues);
  if ('field' in f && 'value' in f && !f.fn) {
    if (f.op === 'eq') return [f.value];
    if (f.op === 'in' && Array.isArray(f.value)) return f.value as unknown[];
  }
  return undefined;
}

/** The values `all` excludes: ne / nin / not of what `any` takes, and-ed. */
function allValues(f: RequestFilter): unknown[] | undefined {
  if ('and' in f) return gather(f.and, allValues);
  if ('not' in f) return anyValues(f.not);
  if ('field' in f && 'value' in f && !f.fn) {
    if (f.op === 'ne') return [f.value];
    if (f.op === 'nin' && Array.isArray(f.value)) return f.value as unknown[];
  }
  return undefined;
}

function gather(parts: RequestFilter[], of: (f: RequestFilter) => unknown[] | undefined): unknown[] | undefined {
  const out: unknown[] = [];
  for (const part of parts) {
    const values = of(part);
    if (!values) return undefined;
    out.push(...values);
  }
  return out;
}
