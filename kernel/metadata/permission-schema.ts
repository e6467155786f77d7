/**
 * `<object>.permission.yml`: `permissions:` a list of per-profile entries (a bare list is read the
 * same way). Booleans default to false (deny by default); record_filters must parse as a filter
 * and, like the `fields` map, name only fields of the object.
 */
import { z } from 'zod';
import { ObjectQLError } from '../errors';
import { parseFilter } from '../query/parse-filter';
import type { FieldDefinition, PermissionEntry } from './types';
import type { Report } from './problems';
import { filterFields } from './rule-schema';
import { parseWith } from './zod-issues';

const bool = z.boolean();

const entrySchema = z.strictObject({
  profile: z.string().min(1),
  allow_read: bool.default(false),
  allow_create: bool.default(false),
  allow_edit: bool.default(false),
  allow_delete: bool.default(false),
  record_filters: z.array(z.unknown()).optional(),
  fields: z.record(z.string(), z.strictObject({ allow_read: bool.optional(), allow_edit: bool.optional() })).optional(),
});

const fileSchema = z.preprocess(
  (v) => (Array.isArray(v) ? { permissions: v } : v),
  z.strictObject({ name: z.unknown().optional(), permissions: z.array(entrySchema) }),
);

/** Returns the entries, or undefined when the file has problems (all reported). */
export function parsePermissions(
  content: unknown,
  object: string,
  fields: Record<string, FieldDefinition>,
  report: Report,
): PermissionEntry[] | undefined {
  const input = parseWith(fileSchema, content, [], report);
  if (!input) return undefined;
  let ok = true;
  const bad: Report = (path, reason) => {
    ok = false;
    report(path, reason);
  };
  const profiles = new Map<string, number>();
  const entries = input.permissions.map((e, i) => {
    const first = profiles.get(e.profile);
    if (first !== undefined) bad(['permissions', i, 'profile'], `duplicate entry for profile '${e.profile}' (also permissions[${first}])`);
    else profiles.set(e.profile, i);

    const entry: PermissionEntry = {
      profile: e.profile,
      allow_read: e.allow_read,
      allow_create: e.allow_create,
      allow_edit: e.allow_edit,
      allow_delete: e.allow_delete,
    };
    if (e.record_filters !== undefined) {
      try {
        const filter = parseFilter(e.record_filters);
        if (filter) {
          for (const f of filterFields(filter)) {
            if (!fields[f]) bad(['permissions', i, 'record_filters'], `unknown field '${f}' of object '${object}'`);
          }
        }
      } catch (err) {
        bad(['permissions', i, 'record_filters'], err instanceof ObjectQLError ? err.message : String(err));
      }
      entry.record_filters = e.record_filters;
    }
    if (e.fields !== undefined) {
      for (const f of Object.keys(e.fields)) {
        if (!fields[f]) bad(['permissions', i, 'fields', f], `unknown field '${f}' of object '${object}'`);
      }
      entry.fields = e.fields;
    }
    return entry;
  });
  return ok ? entries : undefined;
}
