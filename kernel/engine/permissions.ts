/**
 * What one caller may do with one object: the object and operation levels, the field level and
 * the record level (record_filters). Deny by default once an object has a permission file; no
 * file means open to any caller the auth settings let in; admin roles bypass everything.
 *
 * A denial is FORBIDDEN (403) for an authenticated caller and UNAUTHORIZED (401) for an anonymous
 * one: credentials were not insufficient, there were none, and authenticating may change the answer.
 */
import { isAnonymous, type User } from '../context';
import { ObjectQLError } from '../errors';
import type { ObjectDefinition, PermissionEntry } from '../metadata/types';
import type { Filter } from '../query/ast';
import { parseFilter } from '../query/parse-filter';

export type Operation = 'read' | 'create' | 'edit' | 'delete';

const FLAG: Record<Operation, keyof Pick<PermissionEntry, 'allow_read' | 'allow_create' | 'allow_edit' | 'allow_delete'>> = {
  read: 'allow_read',
  create: 'allow_create',
  edit: 'allow_edit',
  delete: 'allow_delete',
};

export interface Access {
  /** Unrestricted: admin, system, or an object without a permission file. */
  all: boolean;
  allowed: Record<Operation, boolean>;
  readable: ReadonlySet<string>;
  editable: ReadonlySet<string>;
  /**
   * Record scope per operation, with special values still unresolved; absent when every record is
   * in scope. An `or` of the record_filters of the matching entries that allow the operation: an
   * entry that only allows reading must not widen the records another entry lets you change.
   */
  scopes: Partial<Record<Operation, Filter>>;
  roles: string[];
  /** No user, or one marked anonymous: a denial is UNAUTHORIZED rather than FORBIDDEN. */
  anonymous: boolean;
}

/** Parsed permission entries of one object, computed once at start-up. */
export class ObjectPermissions {
  private readonly entries: Array<{ entry: PermissionEntry; scope?: Filter }>;
  /** Keyed by the caller's roles that count here (profiles of this object, admin roles): bounded, and no role spelling reaches another key. */
  private readonly cache = new Map<string, Access>();
  private readonly relevantRoles: ReadonlySet<string>;
  private readonly allFields: ReadonlySet<string>;
  private readonly writableFields: ReadonlySet<string>;
  private readonly unrestricted: Access;

  constructor(
    private readonly object: ObjectDefinition,
    private readonly adminRoles: ReadonlySet<string>,
  ) {
    this.entries = (object.permissions ?? []).map((entry) => ({
      entry,
      scope: entry.record_filters?.length ? parseFilter(entry.record_filters) : undefined,
    }));
    this.allFields = new Set(Object.keys(object.fields));
    this.writableFields = new Set(
      Object.values(object.fields)
        .filter((f) => !f.system && !f.readonly && f.type !== 'auto_number' && f.type !== 'formula')
        .map((f) => f.name),
    );
    this.relevantRoles = new Set([...this.entries.map(({ entry }) => entry.profile), ...adminRoles]);
    this.unrestricted = {
      all: true,
      allowed: { read: true, create: true, edit: true, delete: true },
      readable: this.allFields,
      editable: this.writableFields,
      scopes: {},
      roles: [],
      anonymous: false,
    };
  }

  /** Access of a caller with these roles (record scopes stay unresolved); `roles` is always the caller's own. */
  access(user: User | undefined, system = false): Access {
    const roles = user?.roles ?? [];
    const anonymous = !system && isAnonymous(user);
    if (system || this.object.permissions === undefined) return { ...this.unrestricted, roles, anonymous };
    const counted = [...new Set(roles.filter((r) => this.relevantRoles.has(r)))].sort();
    const key = JSON.stringify(counted);
    let access = this.cache.get(key);
    if (!access) {
      access = this.compute(counted);
      this.cache.set(key, access);
    }
    return { ...access, roles, anonymous };
  }

  private compute(roles: string[]): Access {
    if (roles.some((r) => this.adminRoles.has(r))) return { ...this.unrestricted, roles };
    const matching = this.entries.filter(({ entry }) => roles.includes(entry.profile));
    const allowed = {} as Record<Operation, boolean>;
    for (const op of Object.keys(FLAG) as Operation[]) allowed[op] = matching.some(({ entry }) => entry[FLAG[op]] === true);

    // A field is readable (editable) when some matching entry that allows reading (editing) does not deny it.
    const readers = matching.filter(({ entry }) => entry.allow_read);
    const editors = matching.filter(({ entry }) => entry.allow_edit || entry.allow_create);
    const readable = new Set(
      [...this.allFields].filter((f) => f === 'id' || readers.some(({ entry }) => entry.fields?.[f]?.allow_read !== false)),
    );
    const editable = new Set(
      [...this.writableFields].filter(
        (f) =>
          readable.has(f) &&
          editors.some(({ entry }) => entry.fields?.[f]?.allow_edit !== false && entry.fields?.[f]?.allow_read !== false),
      ),
    );

    // Per operation: any matching entry allowing it without record_filters reaches every record;
    // otherwise the union of the filters of the entries allowing it.
    const scopes: Partial<Record<Operation, Filter>> = {};
    for (const op of Object.keys(FLAG) as Operation[]) {
      const granting = matching.filter(({ entry }) => entry[FLAG[op]] === true);
      if (granting.length === 0 || granting.some(({ scope }) => scope === undefined)) continue;
      scopes[op] = granting.length === 1 ? granting[0].scope : { or: granting.map(({ scope: s }) => s!) };
    }
    return { all: false, allowed, readable, editable, scopes, roles, anonymous: false };
  }
}

/** Object and operation level: may this caller `op` records of `object` at all? */
export function assertAllowed(access: Access, op: Operation, object: string): void {
  if (access.allowed[op]) return;
  throw denied(access, `${op} records of '${object}'`, { required_permission: FLAG[op], object });
}

/**
 * A permission denial: FORBIDDEN naming what was refused, or UNAUTHORIZED for an anonymous caller.
 * `what` completes "Not allowed to ..."; details carry required_permission, and user_roles is added.
 */
export function denied(
  access: Pick<Access, 'roles' | 'anonymous'>,
  what: string,
  details: { required_permission: string } & Record<string, unknown>,
): ObjectQLError {
  const withRoles = { ...details, user_roles: access.roles };
  if (access.anonymous) return new ObjectQLError('UNAUTHORIZED', `Authentication required: anonymous callers may not ${what}`, withRoles);
  return new ObjectQLError('FORBIDDEN', `Not allowed to ${what}`, withRoles);
}
