/**
 * Navigation properties as the query options follow them: paths through to-one navigation
 * properties (`project_nav/account_nav/name` in $filter and $orderby) and the collection a lambda
 * ranges over. A target that names its navigation properties (the service's model) is asked; a
 * bare one (tests, other callers) gets the field rule: a lookup / master_detail field whose target
 * `resolve` knows is a navigation property following the relation of the field's name.
 */
import type { ObjectDefinition, RequestFilter } from '../../../kernel';
import { propertyError, type Source } from './errors';
import type { Token } from './lexer';
import type { ODataNavigation, ODataQueryTarget } from './types';

/** Most navigation properties one condition or sort key follows when the context does not say (the default maxExpandDepth). */
export const DEFAULT_NAVIGATION_DEPTH = 3;

export type NavigationLookup = (object: ObjectDefinition, name: string) => ODataNavigation | undefined;

/** The navigation lookup of a target: its own, or the field rule over `resolve`. */
export function navigationLookup(target: Pick<ODataQueryTarget, 'resolve' | 'navigation'>): NavigationLookup {
  if (target.navigation) return (object, name) => target.navigation!(object, name);
  return (object, name) => {
    const field = Object.prototype.hasOwnProperty.call(object.fields, name) ? object.fields[name] : undefined;
    if (!field || (field.type !== 'lookup' && field.type !== 'master_detail') || !field.reference_to) return undefined;
    const related = target.resolve(field.reference_to);
    return related && { name, relation: name, kind: field.multiple ? 'many' : 'one', target: related };
  };
}

/** Where the navigation segments of a path lead: the relation names followed, and the object reached. */
export interface FollowedPath {
  relations: string[];
  object: ObjectDefinition;
}

/**
 * Follows `segments` (names, each a to-one navigation property) from `object`. A collection, a
 * plain property or an unknown name among them is INVALID_REQUEST naming it; so is a path longer
 * than `maxDepth` relations (`used` of them already followed by an enclosing lambda).
 */
export function followToOne(
  src: Source,
  object: ObjectDefinition,
  segments: Token[],
  lookup: NavigationLookup | undefined,
  maxDepth: number,
  used = 0,
): FollowedPath {
  const relations: string[] = [];
  let current = object;
  for (const segment of segments) {
    const nav = lookup?.(current, segment.text);
    if (!nav) throw notNavigation(src, current, segment);
    if (nav.kind !== 'one')
      throw propertyError(
        src,
        segment.text,
        `'${segment.text}' is a collection of ${nav.target.name} records; use ${segment.text}/any(x: ...) or ${segment.text}/all(x: ...) to test its records`,
        segment.pos,
      );
    if (used + relations.length + 1 > maxDepth)
      throw propertyError(
        src,
        segment.text,
        `the path follows more than ${maxDepth} navigation properties (the service's maxExpandDepth)`,
        segment.pos,
      );
    relations.push(nav.relation);
    current = nav.target;
  }
  return { relations, object: current };
}

export function notNavigation(src: Source, object: ObjectDefinition, segment: Token): Error {
  const known = Object.prototype.hasOwnProperty.call(object.fields, segment.text);
  return propertyError(
    src,
    segment.text,
    known
      ? `'${segment.text}' is not a navigation property of '${object.name}', so no path can go through it`
      : `unknown navigation property '${segment.text}' on '${object.name}'`,
    segment.pos,
  );
}

/** A filter through a chain of to-one relations: `{relation, quantifier: 'any', filter}` nested, outermost first. */
export function through(relations: readonly string[], filter: RequestFilter): RequestFilter {
  let out = filter;
  for (let i = relations.length - 1; i >= 0; i--) out = { relation: relations[i], quantifier: 'any', filter: out };
  return out;
}
