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
  /**
   * The navigation property `name` of `object` (an object as `resolve` gives it), or undefined.
   * Without it, a navigation property is a lookup / master_detail field whose target `resolve`
   * knows, following the relation of that field's name (query/navigation.ts).
   */
  navigation?(object: ObjectDefinition, name: string): ODataNavigation | undefined;
}

/**
 * A navigation property as the parser follows it: `relation` is the kernel's relation name
 * (engine.relations: the lookup field for `one` and `many`, the reverse relation's name for
 * `reverse`), `target` the related object as the caller sees it.
 */
export interface ODataNavigation {
  name: string;
  relation: string;
  /** `one`: to one record; `many`: a multiple lookup; `reverse`: the records of `target` pointing here. */
  kind: 'one' | 'many' | 'reverse';
  target: ObjectDefinition;
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
