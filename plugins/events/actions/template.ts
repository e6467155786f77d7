/**
 * Body and data templates: any JSON value whose strings may hold `{{event.record.name}}`-style
 * placeholders. A placeholder is a path of own keys (and `[i]` list indexes) into the scope —
 * never evaluated as code. A string that is one placeholder and nothing else takes the value with
 * its own JSON type (a number stays a number, a record stays a map); inside a longer string a value
 * is written as text (strings as they are, anything else as JSON, null and missing as '').
 */

/** The names a placeholder may start with (the scope `templateScope` builds). */
export const TEMPLATE_ROOTS = ['event', 'delivery', 'workflow', 'scheduledAt', 'now'] as const;

const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*)\s*\}\}$/;

/** `event.record.name` / `event.fields[0]` → ['event', 'record', 'name'] / ['event', 'fields', 0]. */
export function splitPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1]) out.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

/** The value at a path of own keys; undefined when any step is missing. */
export function lookup(scope: unknown, path: string): unknown {
  let value: unknown = scope;
  for (const seg of splitPath(path)) {
    if (value === null || value === undefined) return undefined;
    if (Array.isArray(value)) {
      const i = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : NaN;
      if (!Number.isInteger(i) || i >= value.length) return undefined;
      value = value[i];
    } else if (typeof value === 'object') {
      const key = String(seg);
      if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return value;
}

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** The template with every placeholder replaced from `scope` (a fresh value; the template is not changed). */
export function renderTemplate(template: unknown, scope: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) {
      const value = lookup(scope, whole[1]);
      return value === undefined ? null : structuredClone(value);
    }
    return template.replace(PLACEHOLDER, (_m, path: string) => asText(lookup(scope, path)));
  }
  if (Array.isArray(template)) return template.map((item) => renderTemplate(item, scope));
  if (template !== null && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) out[key] = renderTemplate(value, scope);
    return out;
  }
  return template;
}

/** Every placeholder path of a template, with where it is (key path segments below the template). */
export function placeholders(template: unknown, at: (string | number)[] = []): { path: string; at: (string | number)[] }[] {
  if (typeof template === 'string') return [...template.matchAll(PLACEHOLDER)].map((m) => ({ path: m[1], at }));
  if (Array.isArray(template)) return template.flatMap((item, i) => placeholders(item, [...at, i]));
  if (template !== null && typeof template === 'object') {
    return Object.entries(template).flatMap(([key, value]) => placeholders(value, [...at, key]));
  }
  return [];
}

/** Why a template cannot be rendered (a placeholder outside the scope's roots), or undefined. */
export function templateProblems(template: unknown): { at: (string | number)[]; reason: string }[] {
  const roots: readonly string[] = TEMPLATE_ROOTS;
  return placeholders(template)
    .filter((p) => !roots.includes(String(splitPath(p.path)[0])))
    .map((p) => ({ at: p.at, reason: `placeholder {{${p.path}}} must start with one of ${TEMPLATE_ROOTS.join(', ')}` }));
}
