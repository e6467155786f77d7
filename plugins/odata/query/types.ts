/** The contract between the OData query parser and the OData service. */
import type { FindOptions, ObjectDefinition } from '../../../kernel';

/** The object a query is about, as the caller sees it. */
export interface ODataQueryTarget {
  /**
   * The object with the fields the caller may read (a field left out is unknown to the parser,
   * exactly like one that does not exist).
   */
  object: ObjectDefinition;
  /** Other objects, by name, as the caller sees them: the targets of navigation properties. */
  resolve(name: string): ObjectDefinition | undefined;
}

export interface ODataQuerySettings {
  /** Deepest $expand nesting; a top-level navigation property is depth 1. */
  maxExpandDepth: number;
  /** When false, $search is refused. */
  enableSearch: boolean;
  /** Largest $top (also inside $expand). */
  maxTop: number;
  /** Deepest nesting of parentheses and `not` in $filter and $search (default 16, the kernel's maxFilterDepth). */
  maxFilterDepth?: number;
  /** Most conditions one $filter or $search makes (default 200, the kernel's maxFilterConditions). */
  maxFilterConditions?: number;
}

export interface ODataQuery {
  /** fields ($select, always with 'id'), filter ($filter and $search and-ed), sort, top, skip, expand. */
  find: FindOptions;
  /** $count=true. */
  count: boolean;
  /** $select as written (each name once; '*' kept), for the context URL. */
  select?: string[];
  /** The top-level navigation properties expanded, in order, for the context URL. */
  expand?: string[];
}
