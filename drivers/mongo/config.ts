import type { MongoClientOptions } from 'mongodb';
import { PluginError } from '../../kernel';
import type { DatasourceConfig } from '../../kernel';

/** A datasource of the mongo driver: `{driver: 'mongo', url, database?, options?}`. */
export interface MongoDatasourceConfig {
  url: string;
  /** The database holding the collections (one per object); defaults to the URL's path. */
  database: string;
  /** Passed to MongoClient, over the driver's defaults below. */
  options: MongoClientOptions;
}

/**
 * Defaults that differ from MongoClient's: fail a call after 5 s without a reachable server
 * (instead of 30 s) so a request gets its DATABASE_ERROR while the client still waits, and leave
 * out undefined values inside json values (as JSON does) instead of storing them as null.
 */
export const DEFAULT_CLIENT_OPTIONS: Readonly<MongoClientOptions> = Object.freeze({
  serverSelectionTimeoutMS: 5000,
  ignoreUndefined: true,
});

const KEYS = new Set(['driver', 'url', 'database', 'options']);

/** The database named in a connection string's path, if any. */
export function databaseOfUrl(url: string): string | undefined {
  const path = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/.exec(url)?.[1];
  return path ? decodeURIComponent(path) : undefined;
}

/** Checks a datasource's config; a mistake stops start-up with a message naming the datasource. */
export function parseMongoConfig(name: string, config: DatasourceConfig): MongoDatasourceConfig {
  const where = `Datasource '${name}' (driver mongo)`;
  const unknown = Object.keys(config).filter((k) => !KEYS.has(k));
  if (unknown.length > 0)
    throw new PluginError(`${where}: unknown option ${unknown.map((k) => `'${k}'`).join(', ')}; use url, database, options`);
  const { url, database, options } = config;
  if (typeof url !== 'string' || !/^mongodb(\+srv)?:\/\//.test(url)) {
    throw new PluginError(`${where}: 'url' must be a MongoDB connection string (mongodb://host:port/database or mongodb+srv://...)`);
  }
  if (database !== undefined && (typeof database !== 'string' || database === ''))
    throw new PluginError(`${where}: 'database' must be a non-empty string`);
  const db = database ?? databaseOfUrl(url);
  if (!db) throw new PluginError(`${where}: name the database in 'database' or in the url's path (mongodb://host/database)`);
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new PluginError(`${where}: 'options' must be an object of MongoClient options`);
  }
  return { url, database: db, options: { ...DEFAULT_CLIENT_OPTIONS, ...(options as MongoClientOptions | undefined) } };
}

/** A connection string without its password, for messages. */
export function redactUrl(text: string): string {
  return text.replace(/\/\/([^:@/]+):[^@/]*@/g, '//$1:***@');
}
