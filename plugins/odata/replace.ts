/**
 * PUT as a full replace (OData 4.0 Part 1, 11.4.3): the entity becomes what the body says, and a
 * property the body leaves out is reset — to the field's defaultValue, else null. Only the fields
 * the caller may edit are reset (system, read-only and computed fields are the engine's, and a
 * field the caller may not edit keeps its value as PATCH would keep it); a required field reset to
 * nothing is the engine's VALIDATION_ERROR naming it, as on create. Pure.
 */
import type { DataRecord, ObjectDefinition, User } from '../../kernel';

/** The body's data plus, for each editable field it leaves out, that field's default or null. */
export function replacement(def: ObjectDefinition, data: DataRecord, editable: ReadonlySet<string>, user: User | undefined): DataRecord {
  const out: DataRecord = { ...data };
  for (const name of editable) {
    if (name === 'id' || name in out) continue;
    const field = def.fields[name];
    if (!field) continue;
    out[name] = field.defaultValue === undefined ? null : defaultOf(field.defaultValue, user);
  }
  return out;
}

/** A defaultValue with the special values a create resolves ($now, $today, $current_user) resolved alike. */
function defaultOf(value: unknown, user: User | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => defaultOf(v, user)).filter((v) => v !== null);
  if (value === '$now') return new Date().toISOString();
  if (value === '$today') return new Date().toISOString().slice(0, 10);
  if (value === '$current_user') return user?.id ?? null;
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}
