/**
 * The abstract operations of the permission matrix. Every protocol adapter (adapters/*.ts) maps
 * them onto its own syntax over real HTTP and maps the answer back into an Outcome; the cases in
 * data-cases.ts and describe-cases.ts only ever speak these terms, so a new protocol joins the
 * matrix by implementing this file's interfaces in one adapter.
 */
import type { ObjectDefinition } from '../../kernel';
import type { MatrixUser } from './users';

export type Rec = Record<string, any>;

/** One condition of the spec's array filter; a list of them is and-ed. */
export type Condition = [field: string, op: string, value: unknown];

export interface ListQuery {
  /** A field may be a path through a to-one relation: `project.name`. */
  filters?: Condition[];
  sort?: Array<[field: string, dir: 'asc' | 'desc']>;
  fields?: string[];
  /** Relation (a lookup field, or a one-to-many relation name) → options of the related records. */
  expand?: Record<string, Pick<ListQuery, 'fields' | 'filters' | 'sort'>>;
  top?: number;
  /** The deprecated alias of `top` (spec: REST and GraphQL keep it); a protocol without it lacks `limit`. */
  limit?: number;
}

export interface AggregateQuery {
  groupBy?: string[];
  aggregate: Array<{ func: 'count' | 'sum' | 'avg' | 'min' | 'max'; field?: string; alias: string }>;
  filters?: Condition[];
}

/** What came back, in protocol-neutral terms. */
export interface Outcome {
  /** The HTTP status (a protocol answering 200 with an error body maps the error code to its status). */
  status: number;
  /** The spec's error object, on failure. */
  error?: { code: string; message: string; details?: any };
  /** list, aggregate, createMany: the records or groups. */
  items?: Rec[];
  /** list: the total the page reports (meta.total, @odata.count ...), when the protocol reports one. */
  total?: number;
  /** get, create, update, delete: the record (without protocol annotations such as @type). */
  record?: Rec;
  /** count, updateMany, deleteMany. */
  count?: number;
  /** describe: objects → the names of the fields described for each. */
  described?: Record<string, string[]>;
  /** describe one object: the names of its fields described. */
  fields?: string[];
  /** The raw response, for messages when an assertion fails. */
  raw: unknown;
}

/**
 * What a protocol cannot express, each with the reason the matrix reports (as a pending test) when
 * it leaves those cases out or checks them another way. Absent: the protocol can.
 */
export interface Lacks {
  /** No expansion of relations (relations are ids): the expand cases are skipped. */
  expand?: string;
  /**
   * No "every field the caller may read" answer: the protocol returns exactly the fields a request
   * names (a GraphQL selection set). The reads then name the fields the table says are readable.
   */
  defaultFields?: string;
  /**
   * A field the protocol's schema does not have never reaches the engine (a typed schema refuses
   * it first), so a hidden field cannot be compared with a nonexistent one through the protocol
   * where the request names fields by schema (a selection, an input object). There the hidden
   * field's answer is compared with the engine's own answer to the same operation naming a
   * nonexistent field, asked in-process as the same caller.
   */
  unknownFields?: string;
  /** No `limit` alias of `top`: the cases of the one top/limit rule are left out. */
  limit?: string;
  /** No condition through a to-one relation (a filter `project.name`): relation-cases.ts leaves those out. */
  through?: string;
  /** No one-to-many expand (`expand: {tasks: {...}}` on a project): relation-cases.ts leaves those out. */
  oneToMany?: string;
}

/** The data operations. Optional ones are skipped for a protocol that has no such operation. */
export interface DataOps {
  lacks?: Lacks;
  list(user: MatrixUser, object: string, query?: ListQuery): Promise<Outcome>;
  get(user: MatrixUser, object: string, id: string, query?: Pick<ListQuery, 'fields' | 'expand'>): Promise<Outcome>;
  count?(user: MatrixUser, object: string, filters?: Condition[]): Promise<Outcome>;
  aggregate?(user: MatrixUser, object: string, query: AggregateQuery): Promise<Outcome>;
  create(user: MatrixUser, object: string, data: Rec): Promise<Outcome>;
  createMany?(user: MatrixUser, object: string, data: Rec[]): Promise<Outcome>;
  update(user: MatrixUser, object: string, id: string, data: Rec): Promise<Outcome>;
  delete(user: MatrixUser, object: string, id: string): Promise<Outcome>;
  /** Filters in the spec's map form ({} = every record the caller may reach). */
  updateMany?(user: MatrixUser, object: string, filters: Rec, data: Rec): Promise<Outcome>;
  deleteMany?(user: MatrixUser, object: string, filters: Rec): Promise<Outcome>;
  action?(user: MatrixUser, object: string, action: string, args: { id?: string; input?: Rec }): Promise<Outcome>;
  /** The records of `object` with any record of the one-to-many `relation` matching `condition` (OData any, GraphQL some). */
  listAny?(user: MatrixUser, object: string, relation: string, condition: Condition): Promise<Outcome>;
}

/** What a protocol tells a user about the objects (metadata API; later OData $metadata, GraphQL introspection). */
export interface DescribeOps {
  /** Every object the user is shown, with the names of the fields shown for each. */
  objects(user: MatrixUser): Promise<Outcome>;
  /** One object: the names of its fields shown to the user. */
  object(user: MatrixUser, object: string): Promise<Outcome>;
  field?(user: MatrixUser, object: string, field: string): Promise<Outcome>;
  /** Change an object's label (admins only). */
  updateObject?(user: MatrixUser, object: string, patch: { label?: string; description?: string }): Promise<Outcome>;
}

/** How the matrix reaches the server: one request as a user (credentials are added in one place, credentials.ts). */
export interface Client {
  request(
    user: MatrixUser,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  routes: { rpc: string; data: string; metadata: string; files: string };
  /** An object's definition as the server's registry holds it (every field, system ones included). */
  definition(object: string): ObjectDefinition | undefined;
}

export interface ProtocolAdapter {
  name: string;
  /** The plugins (config `plugins` entries) this protocol needs on the server. */
  plugins: Record<string, unknown>;
  /** The operations this protocol offers, bound to a client. */
  connect(client: Client): { data?: DataOps; describe?: DescribeOps };
}

/** The spec's error body → Outcome; anything else is kept raw. */
export function outcomeOf(status: number, body: any): Outcome {
  const out: Outcome = { status, raw: body };
  if (body && typeof body === 'object' && body.error && typeof body.error === 'object') out.error = body.error;
  return out;
}

/** A record without the protocol's annotations. */
export function plainRecord(body: any): Rec | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body) || body.error) return undefined;
  const { '@type': _type, ...rest } = body;
  return rest;
}

/** The spec's array form of an and-ed list of conditions: [c1, 'and', c2, ...]. */
export function specFilter(conditions: Condition[]): unknown[] {
  return conditions.flatMap((c, i) => (i === 0 ? [c] : ['and', c]));
}
