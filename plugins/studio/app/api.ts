/**
 * The service's public APIs as Studio calls them, with the session cookie (same origin): the
 * metadata API, JSON-RPC for queries and actions, REST for single records (their ETag makes
 * updates and deletes conditional: a change made meanwhile is refused with 412, not overwritten),
 * the File API for uploads, the auth plugin's session routes.
 */
import type { StudioSettings } from './settings';
import type {
  ActionDescriptor,
  AppEntry,
  Attachment,
  DataRecord,
  FieldDescriptor,
  FilterExpr,
  ObjectAccess,
  ObjectDescriptor,
  ObjectSummary,
  PageMeta,
  User,
  ViewEntry,
} from './types';

/** The spec's error body, with the HTTP status it came with. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** VALIDATION_ERROR's `details.fields`: field → message. */
  get fieldErrors(): Record<string, string> {
    const fields = (this.details as { fields?: unknown } | undefined)?.fields;
    if (!fields || typeof fields !== 'object') return {};
    return Object.fromEntries(Object.entries(fields as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  }
}

export interface FindArgs {
  fields?: string[];
  filters?: FilterExpr;
  sort?: Array<[string, 'asc' | 'desc']>;
  top?: number;
  skip?: number;
  expand?: Record<string, { fields?: string[] }>;
}

export interface Credential {
  kind: 'apiKey' | 'bearer';
  value: string;
}

type Json = Record<string, unknown>;

export class Api {
  /** Called when a request is refused for want of a session (it expired, or was ended elsewhere). */
  onUnauthorized?: () => void;

  constructor(readonly settings: StudioSettings['api']) {}

  private async request<T>(method: string, url: string, init: { body?: unknown; headers?: Record<string, string>; form?: FormData } = {}) {
    const headers: Record<string, string> = { Accept: 'application/json', ...init.headers };
    let body: BodyInit | undefined;
    if (init.form) body = init.form;
    else if (init.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, credentials: 'same-origin' });
    } catch {
      throw new ApiError(0, 'NETWORK_ERROR', 'The service cannot be reached');
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const error = (json as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
      const failure = new ApiError(
        response.status,
        error?.code ?? `HTTP_${response.status}`,
        error?.message ?? response.statusText,
        error?.details,
      );
      if (response.status === 401) this.onUnauthorized?.();
      throw failure;
    }
    return { body: json as T, headers: response.headers };
  }

  private async json<T>(method: string, url: string, body?: unknown): Promise<T> {
    return (await this.request<T>(method, url, { body })).body;
  }

  private rpc<T>(op: string, object: string, args: unknown): Promise<T> {
    return this.json<T>('POST', this.settings.rpc, { op, object, args });
  }

  private dataUrl(object: string, id?: string): string {
    return `${this.settings.data}/${encodeURIComponent(object)}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;
  }

  private metaUrl(...segments: string[]): string {
    return [this.settings.metadata, ...segments.map(encodeURIComponent)].join('/');
  }

  // ---- session ----------------------------------------------------------------------------------

  /** The signed-in user, or undefined without a session. */
  async currentUser(): Promise<User | undefined> {
    if (!this.settings.session) return undefined;
    try {
      return (await this.json<{ data: { user: User } }>('GET', this.settings.session)).data.user;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return undefined;
      throw err;
    }
  }

  /** Trades an API key or a bearer token for the session cookie; the credential itself is kept nowhere. */
  async signIn(credential: Credential): Promise<User> {
    if (!this.settings.session) throw new ApiError(0, 'NO_SESSIONS', 'This service offers no sessions (plugins.auth.sessions)');
    const headers: Record<string, string> =
      credential.kind === 'apiKey' ? { 'X-API-Key': credential.value } : { Authorization: `Bearer ${credential.value}` };
    const { body } = await this.request<{ data: { user: User } }>('POST', this.settings.session, { headers });
    return body.data.user;
  }

  async signOut(): Promise<void> {
    if (this.settings.session) await this.request('DELETE', this.settings.session).catch(() => undefined);
  }

  // ---- metadata ---------------------------------------------------------------------------------

  async objects(): Promise<ObjectSummary[]> {
    return (await this.json<{ objects: ObjectSummary[] }>('GET', this.metaUrl('objects'))).objects;
  }

  object(name: string): Promise<ObjectDescriptor> {
    return this.json('GET', this.metaUrl('objects', name));
  }

  field(object: string, field: string): Promise<FieldDescriptor> {
    return this.json('GET', this.metaUrl('objects', object, 'fields', field));
  }

  access(object: string): Promise<ObjectAccess> {
    return this.json('GET', this.metaUrl('objects', object, 'access'));
  }

  async actions(object: string): Promise<ActionDescriptor[]> {
    return (await this.json<{ actions: ActionDescriptor[] }>('GET', this.metaUrl('objects', object, 'actions'))).actions;
  }

  /** Entries of a metadata type (app, view, ...): id → content; none when the type has no entry. */
  async entries<T = AppEntry | ViewEntry>(type: string): Promise<Array<{ id: string; content: T }>> {
    try {
      const list = await this.json<{ items?: Array<{ id: string; content: T }> }>('GET', this.metaUrl(type));
      return list.items ?? [];
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return [];
      throw err;
    }
  }

  /** One metadata entry's content: GET {metadata}/:type/:id. */
  entry(type: string, id: string): Promise<unknown> {
    return this.json('GET', this.metaUrl(type, id));
  }

  // ---- records ----------------------------------------------------------------------------------

  find(object: string, args: FindArgs): Promise<{ items: DataRecord[]; meta: PageMeta }> {
    return this.rpc('find', object, args);
  }

  async count(object: string, filters?: FilterExpr): Promise<number> {
    return (await this.rpc<{ count: number }>('count', object, filters?.length ? { filters } : {})).count;
  }

  /** One record with its ETag (the version a conditional update or delete names). */
  async get(object: string, id: string): Promise<{ record: DataRecord; etag?: string }> {
    const { body, headers } = await this.request<DataRecord>('GET', this.dataUrl(object, id));
    return { record: body, etag: headers.get('ETag') ?? undefined };
  }

  async create(object: string, data: Json): Promise<DataRecord> {
    return this.json('POST', this.dataUrl(object), data);
  }

  /** Refused with 412 PRECONDITION_FAILED when the record changed since `etag` was read. */
  async update(object: string, id: string, data: Json, etag?: string): Promise<{ record: DataRecord; etag?: string }> {
    const { body, headers } = await this.request<DataRecord>('PUT', this.dataUrl(object, id), {
      body: data,
      headers: etag ? { 'If-Match': etag } : {},
    });
    return { record: body, etag: headers.get('ETag') ?? undefined };
  }

  async remove(object: string, id: string, etag?: string): Promise<void> {
    await this.request('DELETE', this.dataUrl(object, id), { headers: etag ? { 'If-Match': etag } : {} });
  }

  action(object: string, action: string, id: string | undefined, input: Json): Promise<unknown> {
    return this.rpc('action', object, { action, ...(id !== undefined ? { id } : {}), input });
  }

  // ---- files ------------------------------------------------------------------------------------

  async upload(file: File, object: string, field: string): Promise<Attachment> {
    if (!this.settings.files) throw new ApiError(0, 'NO_FILES', 'This service has no File API (plugins.files)');
    const form = new FormData();
    form.append('object', object);
    form.append('field', field);
    form.append('file', file);
    return (await this.request<{ data: Attachment }>('POST', `${this.settings.files}/upload`, { form })).body.data;
  }
}
