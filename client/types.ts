/**
 * The types a typed client is built from: a generated schema (`objectql generate types`) maps each
 * object's name to its record, create and update shapes; the query options and the spec's filter
 * language are typed over a record's fields, so a wrong field name does not compile.
 */

/** One object of a generated schema. */
export interface ObjectTypes {
  record: { id: string };
  create: object;
  update: object;
}

/** A generated schema: object name → its types (an interface, so no index signature is asked for). */
export type Schema<S = Record<string, ObjectTypes>> = { [K in keyof S]: ObjectTypes };

/** The fields of a record, as names. */
export type FieldOf<R> = Extract<keyof R, string>;

type Scalar<V> = V extends ReadonlyArray<infer E> ? E : V;
type Special = `$current_user${string}` | '$today' | '$now' | { $field: string };

export type ComparisonOperator = '=' | '!=' | '>' | '>=' | '<' | '<=';
export type TextOperator = 'like' | 'startswith' | 'endswith' | 'contains';

/** One condition of the spec's array form, its value typed by the field. */
export type Condition<R> = {
  [K in FieldOf<R>]:
    | [K, ComparisonOperator, Scalar<R[K]> | null | Special]
    | [K, 'in' | 'not in', ReadonlyArray<Scalar<R[K]>>]
    | [K, 'between', [Scalar<R[K]>, Scalar<R[K]>]]
    | [K, TextOperator, string];
}[FieldOf<R>];

/** The spec's array form: conditions, `and` / `or` between them, `['not', [...]]` and groups. */
export type FilterArray<R> = ReadonlyArray<Condition<R> | 'and' | 'or' | ['not', FilterArray<R>] | FilterArray<R>>;

/** The spec's map form: `{status: 'active', budget: ['>', 1000]}`. */
export type FilterMap<R> = {
  [K in FieldOf<R>]?:
    Scalar<R[K]> | null | [ComparisonOperator | TextOperator, Scalar<R[K]> | Special] | ['in' | 'not in', ReadonlyArray<Scalar<R[K]>>];
};

export type Filters<R> = FilterArray<R> | FilterMap<R>;

export type SortKey<R> = FieldOf<R> | `-${FieldOf<R>}` | `${FieldOf<R>} ${'asc' | 'desc'}`;
export type Sort<R> = SortKey<R> | ReadonlyArray<[FieldOf<R>, 'asc' | 'desc']>;

export interface FindOptions<R> {
  fields?: ReadonlyArray<FieldOf<R>>;
  filters?: Filters<R>;
  sort?: Sort<R>;
  top?: number;
  skip?: number;
  /** Relations to inline, with their own options (not typed beyond the name: the related object's fields). */
  expand?: Record<string, object>;
}

export interface PageMeta {
  total: number;
  page: number;
  size: number;
  pages: number;
  has_next: boolean;
}

export interface Page<R> {
  items: R[];
  meta: PageMeta;
}

export interface BulkResult {
  count: number;
  errors?: Array<{ index: number; id?: string; error: { code: string; message: string; details?: unknown } }>;
}
