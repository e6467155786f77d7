/**
 * Conditions through relations, resolved before the driver: each becomes an `in` (or `nin`) list
 * of ids read from the related object as the caller sees it (its record scope applies), one query
 * per condition. Works on every driver and across datasources; a condition matching more than
 * limits.maxRelatedRecords related records is refused rather than sent as an unbounded list.
 */
import { ObjectQLError } from '../errors';
import { andFilters, isRelation, type Filter, type RelationCondition, type RequestFilter } from '../query/ast';
import { assertAllowed } from './permissions';
import type { RelatedEnv } from './query-check';
import type { ObjectRepository } from './repository';

/** True for every record: `id` is never null. */
const ALWAYS: Filter = { field: 'id', op: 'isnull', value: false };
/** True for no record. */
const NEVER: Filter = { field: 'id', op: 'in', value: [] };

/** The relation of this name the caller may follow from `repo`, or undefined (see CheckEnv.related). */
export function relatedEnv(repo: ObjectRepository, name: string): RelatedEnv | undefined {
  const relation = repo.compiled.links.get(name);
  if (!relation) return undefined;
  const target = repo.engine.scopedRepo(relation.target, repo.request, repo.unit);
  const targetAccess = target.access;
  // The lookup field carrying the relation must be readable where it lives: a hidden own field is
  // unknown, as for any filter; a one-to-many relation needs the related object's read first.
  if (relation.kind !== 'reverse' && !repo.access.readable.has(relation.field)) return undefined;
  assertAllowed(targetAccess, 'read', target.name);
  if (relation.kind === 'reverse' && !targetAccess.readable.has(relation.field)) return undefined;
  return { relation, env: target.env(targetAccess) };
}

/** The filter with every condition through a relation replaced by a condition on this object's own fields. */
export async function resolveRelations(repo: ObjectRepository, filter: RequestFilter | undefined): Promise<Filter | undefined> {
  if (filter === undefined) return undefined;
  if ('and' in filter) return { and: await Promise.all(filter.and.map((f) => resolveRelations(repo, f) as Promise<Filter>)) };
  if ('or' in filter) return { or: await Promise.all(filter.or.map((f) => resolveRelations(repo, f) as Promise<Filter>)) };
  if ('not' in filter) return { not: (await resolveRelations(repo, filter.not)) as Filter };
  if (!isRelation(filter)) return filter;
  return resolveRelation(repo, filter);
}

async function resolveRelation(repo: ObjectRepository, c: RelationCondition): Promise<Filter> {
  const relation = repo.compiled.links.get(c.relation)!;
  const target = repo.engine.scopedRepo(relation.target, repo.request, repo.unit);
  const inner = await resolveRelations(target, c.filter);
  const scope = target.scopeFilter();
  if (relation.kind === 'reverse') {
    // The parents some (or, for `all`, none failing) of whose visible children match.
    if (c.quantifier === 'all' && inner === undefined) return ALWAYS;
    const childFilter: Filter | undefined = c.quantifier === 'all' ? { not: inner! } : inner;
    const parents = await distinctValues(target, relation.field, andFilters(childFilter, scope, notNull(relation.field)), c.relation);
    if (c.quantifier === 'all') return parents.length ? { field: 'id', op: 'nin', value: parents } : ALWAYS;
    return parents.length ? { field: 'id', op: 'in', value: parents } : NEVER;
  }
  // To one (or many): the lookup holds a related record that matches (for many + all: none that does not).
  if (relation.kind === 'many' && c.quantifier === 'all') {
    if (inner === undefined) return ALWAYS;
    const failing = await matchingIds(target, andFilters({ not: inner }, scope), c.relation);
    return failing.length ? { field: relation.field, op: 'nin', value: failing } : ALWAYS;
  }
  const ids = await matchingIds(target, andFilters(inner, scope), c.relation);
  return ids.length ? { field: relation.field, op: 'in', value: ids } : NEVER;
}

function notNull(field: string): Filter {
  return { field, op: 'isnull', value: false };
}

async function matchingIds(target: ObjectRepository, filter: Filter | undefined, relation: string): Promise<string[]> {
  const max = target.engine.limits.maxRelatedRecords;
  const rows = await target.compiled.datasource.find(target.name, { fields: ['id'], filter, top: max + 1 }, target.tx);
  if (rows.length > max) tooMany(target, relation, max);
  return rows.map((r) => String(r.id));
}

async function distinctValues(target: ObjectRepository, field: string, filter: Filter | undefined, relation: string): Promise<string[]> {
  const max = target.engine.limits.maxRelatedRecords;
  const rows = await target.compiled.datasource.aggregate(
    target.name,
    { filter, groupBy: [field], aggregate: [], top: max + 1 },
    target.tx,
  );
  if (rows.length > max) tooMany(target, relation, max);
  return rows.map((r) => String(r[field]));
}

function tooMany(target: ObjectRepository, relation: string, max: number): never {
  throw new ObjectQLError(
    'INVALID_REQUEST',
    `The condition through '${relation}' matches more than ${max} records of '${target.name}'; narrow it (limits.maxRelatedRecords)`,
    { field: relation, object: target.name, max },
  );
}
