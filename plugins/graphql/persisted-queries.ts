/**
 * Apollo's automatic persisted queries (docs/graphql.md, "Persisted queries"), as Apollo Server
 * answers them: a request carrying `extensions.persistedQuery {version: 1, sha256Hash}` without
 * `query` runs the query stored under that hash, or gets `PERSISTED_QUERY_NOT_FOUND` (HTTP 200),
 * upon which the client sends the query with its hash; that query is checked (its SHA-256 must
 * be the hash: `PERSISTED_QUERY_HASH_MISMATCH` otherwise) and, once it parses and validates,
 * kept. Over POST and GET (`extensions` as JSON text). With the option off, a hash alone gets
 * `PERSISTED_QUERY_NOT_SUPPORTED` (the client then stops sending hashes).
 *
 * The store is the plugin instance's (one per kernel), bounded: `maxEntries` queries, the least
 * recently used forgotten first; a query longer than `maxQueryLength` runs but is not kept.
 */
import { createHash } from 'node:crypto';
import { ObjectQLError } from '../../kernel';
import { assertJsonTextDepth, assertValueDepth } from '../../kernel/protocol';
import type { PersistedQuerySettings } from './options';

export const PERSISTED_CODES = {
  NOT_FOUND: 'PERSISTED_QUERY_NOT_FOUND',
  NOT_SUPPORTED: 'PERSISTED_QUERY_NOT_SUPPORTED',
  HASH_MISMATCH: 'PERSISTED_QUERY_HASH_MISMATCH',
} as const;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Query texts by the SHA-256 of their text, least recently used first. */
export class PersistedQueryStore {
  private readonly queries = new Map<string, string>();

  constructor(private readonly bounds: { maxEntries: number; maxQueryLength: number }) {}

  get size(): number {
    return this.queries.size;
  }

  get(hash: string): string | undefined {
    const query = this.queries.get(hash);
    if (query !== undefined) {
      // Used now: to the end of the order.
      this.queries.delete(hash);
      this.queries.set(hash, query);
    }
    return query;
  }

  set(hash: string, query: string): void {
    if (query.length > this.bounds.maxQueryLength) return;
    this.queries.delete(hash);
    this.queries.set(hash, query);
    while (this.queries.size > this.bounds.maxEntries) {
      const oldest = this.queries.keys().next();
      if (oldest.done) break;
      this.queries.delete(oldest.value);
    }
  }
}

/** Persisted queries of one plugin instance: its settings and its store (none when off). */
export interface PersistedQueries {
  settings: PersistedQuerySettings;
  store?: PersistedQueryStore;
}

export function persistedQueries(settings: PersistedQuerySettings): PersistedQueries {
  return { settings, store: settings ? new PersistedQueryStore(settings) : undefined };
}

/** What a request's persisted-query extension asks. */
export type PersistedOutcome =
  /** The parameters to run (with the stored query when a hash stood for it); `remember` keeps the query once it has been checked. */
  | { params: Record<string, unknown>; remember?: () => void }
  /** An answer instead of running anything. */
  | { answer: { status: number; message: string; code: string; details?: unknown } };

/**
 * The request's parameters with the query a hash stands for, or the answer to give. `params` is
 * the POST body or the GET query string (an object; anything else is left to execute.ts).
 */
export function resolvePersisted(params: Record<string, unknown>, pq: PersistedQueries, maxJsonDepth: number): PersistedOutcome {
  let extension: Record<string, unknown> | undefined;
  try {
    extension = persistedExtension(params.extensions, maxJsonDepth);
  } catch (err) {
    if (!(err instanceof ObjectQLError)) throw err;
    return { answer: { status: 400, message: err.message, code: err.code, details: err.details } };
  }
  if (extension === undefined) return { params };
  const query = typeof params.query === 'string' && params.query.trim() ? params.query : undefined;
  if (!pq.store) {
    if (query !== undefined) return { params };
    return { answer: { status: 200, message: 'PersistedQueryNotSupported', code: PERSISTED_CODES.NOT_SUPPORTED } };
  }
  const store = pq.store;
  const { version, sha256Hash } = extension;
  if (version !== 1)
    return invalid(
      `extensions.persistedQuery.version must be 1 (the only version of Apollo's persisted queries), got ${JSON.stringify(version)}`,
    );
  const hash = typeof sha256Hash === 'string' ? sha256Hash.toLowerCase() : undefined;
  if (hash === undefined || !SHA256_HEX.test(hash))
    return invalid('extensions.persistedQuery.sha256Hash must be a SHA-256 hash: 64 hexadecimal digits');
  if (query === undefined) {
    const stored = store.get(hash);
    if (stored === undefined) return { answer: { status: 200, message: 'PersistedQueryNotFound', code: PERSISTED_CODES.NOT_FOUND } };
    return { params: { ...params, query: stored } };
  }
  if (createHash('sha256').update(query).digest('hex') !== hash) {
    return {
      answer: {
        status: 400,
        message: "The query's SHA-256 hash is not extensions.persistedQuery.sha256Hash: send the hash of exactly the query text",
        code: PERSISTED_CODES.HASH_MISMATCH,
      },
    };
  }
  return { params, remember: () => store.set(hash, query) };
}

/** The `persistedQuery` extension, or undefined when the request has none; INVALID_REQUEST when it is malformed. */
function persistedExtension(raw: unknown, maxJsonDepth: number): Record<string, unknown> | undefined {
  let extensions = raw;
  if (typeof extensions === 'string') {
    // GET: JSON text, measured before it is parsed.
    try {
      assertJsonTextDepth(extensions, maxJsonDepth, "'extensions'");
      extensions = JSON.parse(extensions) as unknown;
    } catch (err) {
      if (err instanceof ObjectQLError) throw err;
      throw new ObjectQLError('INVALID_REQUEST', "'extensions' must be a JSON object", { parameter: 'extensions' });
    }
  } else assertValueDepth(extensions, maxJsonDepth, "'extensions'");
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const persisted = (extensions as Record<string, unknown>).persistedQuery;
  if (persisted === undefined || persisted === null) return undefined;
  if (typeof persisted !== 'object' || Array.isArray(persisted))
    throw new ObjectQLError('INVALID_REQUEST', "'extensions.persistedQuery' must be an object {version: 1, sha256Hash}", {
      parameter: 'extensions',
    });
  return persisted as Record<string, unknown>;
}

function invalid(message: string): PersistedOutcome {
  return { answer: { status: 400, message, code: 'INVALID_REQUEST' } };
}
