/** What the service's public APIs answer, as far as Studio reads them (docs/spec.md, docs/metadata-api.md). */

export type DataRecord = Record<string, unknown> & { id: string };

/** The metadata API's descriptors, as the server builds them (self-contained: no server types come with them). */
export type * from '../../../kernel/protocol/metadata-descriptors';

/** A page's meta, as the typed client (objectql/client) has it. */
export type { PageMeta } from '../../../client/types';

export interface User {
  id: string;
  roles: string[];
  name?: string;
  [key: string]: unknown;
}

export interface Attachment {
  id?: string;
  name: string;
  url: string;
  size: number;
  type: string;
  thumbnail_url?: string;
  original_name?: string;
}

/** The spec's filter language, array form: [field, op, value] joined by 'and' / 'or', nested. */
export type Condition = [string, string, unknown];
export type FilterExpr = Array<Condition | 'and' | 'or' | FilterExpr>;

/** An `app` metadata entry (the sample's projects.app.yml). */
export interface AppEntry {
  label?: string;
  description?: string;
  icon?: string;
  objects?: string[];
  default_object?: string;
}

/** A `view` metadata entry: a list's columns, filter and sort. */
export interface ViewEntry {
  label?: string;
  object?: string;
  columns?: string[];
  filters?: FilterExpr;
  sort?: Array<[string, 'asc' | 'desc']>;
}
