/**
 * The metadata API's operations: registry + caller → the spec's response bodies (docs/spec.md, "Metadata API"), and the checks
 * that decide what a caller may see or change. Pure: no HTTP here; index.ts binds each operation
 * to a route, and builds the Viewer from the request's identity and the engine's permissions.
 */
import { isAnonymous, ObjectQLError, type CallerPermissions, type MetadataRegistry, type ObjectDefinition, type User } from '../../kernel';
import type { ObjectAccess } from '../../kernel/protocol';
import {
  describeActions,
  describeField,
  describeObject,
  summariseObject,
  visibleFields,
  type ActionDescriptor,
  type FieldDescriptor,
  type ObjectDescriptor,
  type ObjectSummary,
} from './describe';

/** What the mapping reads from (and, for the PUT, writes to) the registry. */
export type MetadataSource = Pick<MetadataRegistry, 'objects' | 'object' | 'types' | 'entries' | 'entry' | 'setObjectInfo'>;

/** Who asks, as far as the metadata API cares. */
export interface Viewer {
  user?: User;
  /** Has one of the config's admin roles. */
  admin: boolean;
  /** The fields of `def` the caller may read; undefined when the caller may not read the object at all. */
  readable(def: ObjectDefinition): ReadonlySet<string> | undefined;
}

/**
 * Types only admins may read: permission files reveal the rules themselves, validation files
 * the rules on fields a caller may not see, data files the initial records whatever their scope,
 * workflow files where events go (webhook URLs, headers, signing keys written in them).
 */
export const ADMIN_ONLY_TYPES: readonly string[] = ['permission', 'validation', 'data', 'workflow'];

/** The keys of PUT {routes.metadata}/object/:name. */
export const INFO_KEYS = ['label', 'description'] as const;
export type InfoPatch = Partial<Record<(typeof INFO_KEYS)[number], string>>;

export interface EntryList {
  type: string;
  /** One per entry, sorted by id; `content` is what GET {routes.metadata}/:type/:id returns. */
  items: Array<{ id: string; content: unknown }>;
}

/** 401 without identity (or an anonymous one), 403 for anyone without an admin role. */
export function requireAdmin(viewer: Viewer, what: string): void {
  const user = viewer.user;
  const details = { required_permission: 'admin', user_roles: user?.roles ?? [] };
  if (!user || isAnonymous(user)) throw new ObjectQLError('UNAUTHORIZED', `${what} requires an authenticated admin`, details);
  if (!viewer.admin) throw new ObjectQLError('FORBIDDEN', `${what} is reserved to admins`, details);
}

/** An object the caller may read, with its readable fields; unknown and hidden objects are the same 404. */
function visibleObject(src: MetadataSource, viewer: Viewer, name: string): { def: ObjectDefinition; readable: ReadonlySet<string> } {
  const def = src.object(name);
  const readable = def && viewer.readable(def);
  if (!def || !readable) throw new ObjectQLError('NOT_FOUND', `Object '${name}' not found`, { object: name });
  return { def, readable };
}

/** GET /objects: every object the caller may read, its fields as a map. */
export function listObjects(src: MetadataSource, viewer: Viewer): { objects: ObjectSummary[] } {
  const objects: ObjectSummary[] = [];
  for (const def of src.objects()) {
    const readable = viewer.readable(def);
    if (readable) objects.push(summariseObject(def, readable));
  }
  return { objects };
}

/** GET /objects/:name: fields as an array, actions and hooks. */
export function getObject(src: MetadataSource, viewer: Viewer, name: string): ObjectDescriptor {
  const { def, readable } = visibleObject(src, viewer, name);
  return describeObject(def, readable);
}

/** GET /objects/:name/fields/:field: the descriptor with its validations; a hidden field is as unknown as a missing one. */
export function getField(src: MetadataSource, viewer: Viewer, name: string, field: string): FieldDescriptor {
  const { def, readable } = visibleObject(src, viewer, name);
  const found = visibleFields(def, readable).find((f) => f.name === field);
  if (!found) throw new ObjectQLError('NOT_FOUND', `Field '${field}' of object '${name}' not found`, { object: name, field });
  return describeField(found, true);
}

/** GET /objects/:name/actions. */
export function listActions(src: MetadataSource, viewer: Viewer, name: string): { actions: ActionDescriptor[] } {
  return { actions: describeActions(visibleObject(src, viewer, name).def) };
}

/**
 * GET /objects/:name/access: the engine's permissions for this caller (`permissions`, the
 * repository's), as the spec's words. An object the caller may not read is the same 404 as GET /objects/:name.
 */
export function getAccess(
  src: MetadataSource,
  viewer: Viewer,
  name: string,
  permissions: (def: ObjectDefinition) => CallerPermissions,
): ObjectAccess {
  const { def, readable } = visibleObject(src, viewer, name);
  const p = permissions(def);
  const fields: ObjectAccess['fields'] = {};
  for (const f of visibleFields(def, readable)) if (p.readable.has(f.name)) fields[f.name] = { read: true, edit: p.editable.has(f.name) };
  return { object: def.name, read: p.canRead, create: p.canCreate, edit: p.canEdit, delete: p.canDelete, fields };
}

/** Checks a PUT body: only label (a non-empty string) and description (a string), at least one of them. */
export function parseInfoPatch(body: unknown): InfoPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ObjectQLError('INVALID_REQUEST', 'Request body must be a JSON object {label?, description?}');
  }
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !(INFO_KEYS as readonly string[]).includes(k));
  if (unknown.length) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `Unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}: only label and description can be changed`,
      { keys: unknown },
    );
  }
  const patch: InfoPatch = {};
  if (record.label !== undefined) {
    if (typeof record.label !== 'string' || !record.label.trim())
      throw new ObjectQLError('INVALID_REQUEST', "'label' must be a non-empty string", { key: 'label' });
    patch.label = record.label;
  }
  if (record.description !== undefined) {
    if (typeof record.description !== 'string')
      throw new ObjectQLError('INVALID_REQUEST', "'description' must be a string", { key: 'description' });
    patch.description = record.description;
  }
  if (!Object.keys(patch).length) throw new ObjectQLError('INVALID_REQUEST', 'Nothing to update: send label and/or description');
  return patch;
}

/** PUT /object/:name: admins only; changes this kernel's registry in memory (no file is written). */
export function updateObjectInfo(src: MetadataSource, viewer: Viewer, name: string, body: unknown): { success: true } {
  requireAdmin(viewer, 'Updating object metadata');
  if (!src.object(name)) throw new ObjectQLError('NOT_FOUND', `Object '${name}' not found`, { object: name });
  src.setObjectInfo(name, parseInfoPatch(body));
  return { success: true };
}

/** `objects` is accepted wherever `object` is. */
function typeName(type: string): string {
  return type === 'objects' ? 'object' : type;
}

function checkType(src: MetadataSource, viewer: Viewer, type: string): void {
  if (ADMIN_ONLY_TYPES.includes(type)) requireAdmin(viewer, `Reading ${type} metadata`);
  if (!src.types().includes(type)) throw new ObjectQLError('NOT_FOUND', `Metadata type '${type}' not found`, { type });
}

/** GET /:type: every entry of a loaded type the caller may read. Objects are described as by GET /objects/:name. */
export function listEntries(src: MetadataSource, viewer: Viewer, rawType: string): EntryList {
  const type = typeName(rawType);
  checkType(src, viewer, type);
  if (type === 'object') {
    const items: EntryList['items'] = [];
    for (const def of src.objects()) {
      const readable = viewer.readable(def);
      if (readable) items.push({ id: def.name, content: describeObject(def, readable) });
    }
    return { type, items };
  }
  return { type, items: src.entries(type).map((e) => ({ id: e.id, content: e.content })) };
}

/** GET /:type/:id: the JSON content of one entry (never where it was loaded from). */
export function getEntry(src: MetadataSource, viewer: Viewer, rawType: string, id: string): unknown {
  const type = typeName(rawType);
  checkType(src, viewer, type);
  if (type === 'object') return getObject(src, viewer, id);
  const entry = src.entry(type, id);
  if (!entry) throw new ObjectQLError('NOT_FOUND', `Metadata entry '${id}' of type '${type}' not found`, { type, id });
  return entry.content;
}

/**
 * POST /:type/:id: metadata comes from YAML folders, which this service never writes. Admins
 * (the only callers who could write metadata) get INVALID_REQUEST naming the entry: the same
 * request will never succeed on this server, whatever the entry, so the client should not retry.
 * `prefix` (the metadata route) makes the hint to the PUT route a usable path.
 */
export function refuseWrite(viewer: Viewer, rawType: string, id: string, prefix = ''): never {
  requireAdmin(viewer, 'Writing metadata');
  const type = typeName(rawType);
  const hint = type === 'object' ? ` To change an object's label or description, use PUT ${prefix}/object/${id}.` : '';
  throw new ObjectQLError(
    'INVALID_REQUEST',
    `Metadata storage is read-only: ${type} '${id}' cannot be written through the API; edit the metadata files and restart.${hint}`,
    { type, id, writable: false },
  );
}
