/**
 * A typed client of the JSON-RPC door (`objectql/client`), for Node 18+ and browsers (global
 * fetch): `createClient<Schema>({url, apiKey})` → `client.project.find({filters, fields})`. The
 * schema comes from `objectql generate types`; see docs/typed-clients.md. An error answer throws
 * an ObjectQLClientError carrying the spec's code, status and details.
 */
import type { BulkResult, FindOptions, ObjectTypes, Page, Schema } from './types';

export type * from './types';

export interface ClientOptions {
  /** The service's origin (and base path): `http://localhost:3000`. */
  url: string;
  /** The JSON-RPC path under `url` (default /api/objectql). */
  rpcPath?: string;
  apiKey?: string;
  /** A Bearer token (JWT). */
  token?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** The operations on one object, typed by its generated types. */
export interface ObjectClient<T extends ObjectTypes> {
  find(options?: FindOptions<T['record']>): Promise<Page<Partial<T['record']> & { id: string }>>;
  findOne(id: string): Promise<T['record'] | null>;
  count(options?: Pick<FindOptions<T['record']>, 'filters'>): Promise<number>;
  create(data: T['create']): Promise<T['record']>;
  update(id: string, data: T['update']): Promise<Partial<T['record']> & { id: string }>;
  delete(id: string): Promise<{ id: string; deleted: true }>;
  createMany(items: ReadonlyArray<T['create']>): Promise<BulkResult & { items: Array<T['record']> }>;
  action(action: string, input?: { id?: string; input?: Record<string, unknown> }): Promise<unknown>;
}

export type Client<S extends Schema<S>> = { readonly [K in keyof S & string]: ObjectClient<S[K]> };

/** An error answer of the service: the spec's `{error: {code, message, details}}` and the HTTP status. */
export class ObjectQLClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ObjectQLClientError';
  }
}

export function createClient<S extends Schema<S>>(options: ClientOptions): Client<S> {
  const endpoint = `${options.url.replace(/\/+$/, '')}${options.rpcPath ?? '/api/objectql'}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const send = options.fetch ?? fetch;

  /** One JSON-RPC call; its answer typed as the caller's ObjectClient method says (the server is the judge). */
  const call = async <T>(object: string, op: string, args?: unknown): Promise<T> => {
    const res = await send(endpoint, { method: 'POST', headers, body: JSON.stringify({ op, object, args }) });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw new ObjectQLClientError('INVALID_RESPONSE', `The service answered ${res.status} with a body that is not JSON`, res.status);
    }
    const error = (body as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
    if (!res.ok || error) {
      throw new ObjectQLClientError(error?.code ?? 'HTTP_ERROR', error?.message ?? `HTTP ${res.status}`, res.status, error?.details);
    }
    return body as T;
  };

  const objectClient = (object: string): ObjectClient<ObjectTypes> => ({
    find: (o = {}) => call(object, 'find', o),
    findOne: async (id) => {
      try {
        return await call(object, 'findOne', id);
      } catch (err) {
        if (err instanceof ObjectQLClientError && err.code === 'NOT_FOUND') return null;
        throw err;
      }
    },
    count: async (o = {}) => (await call<{ count: number }>(object, 'count', o)).count,
    create: (data) => call(object, 'create', data),
    update: (id, data) => call(object, 'update', { id, data }),
    delete: (id) => call(object, 'delete', { id }),
    createMany: (items) => call(object, 'createMany', items),
    action: (action, input = {}) => call(object, 'action', { action, ...input }),
  });

  // One ObjectClient per object name, made when first asked for.
  const made = new Map<string, ObjectClient<ObjectTypes>>();
  return new Proxy({} as Client<S>, {
    get: (_target, name) => {
      if (typeof name !== 'string') return undefined;
      let client = made.get(name);
      if (!client) made.set(name, (client = objectClient(name)));
      return client;
    },
  });
}
