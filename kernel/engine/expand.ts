/**
 * Inline related records: one batched `in` query per relation and level (never one per row),
 * through the related object's own permissions, record scope and hooks, across datasources.
 */
import { ObjectQLError } from '../errors';
import { fieldOf } from './query-check';
import type { ObjectRepository } from './repository';
import type { DataRecord, ExpandOptions } from './types';

export type CheckedExpand = Record<string, { options: ExpandOptions; target: string; multiple: boolean }>;

/** Checks the whole expand tree before any query runs: relation fields only, depth within the limit. */
export function checkExpand(repo: ObjectRepository, expand: unknown, depth: number): CheckedExpand {
  const max = repo.engine.limits.maxExpandDepth;
  if (!expand || typeof expand !== 'object' || Array.isArray(expand)) throw new ObjectQLError('INVALID_REQUEST', "'expand' must be a map from relation field to options");
  if (depth > max) throw new ObjectQLError('EXPAND_DEPTH_EXCEEDED', `Expand depth exceeds the maximum of ${max}`, { max_depth: max });
  const out: CheckedExpand = {};
  for (const [name, raw] of Object.entries(expand as Record<string, unknown>)) {
    const field = fieldOf(repo.env(), name, 'expand');
    if (field.type !== 'lookup' && field.type !== 'master_detail') throw new ObjectQLError('INVALID_REQUEST', `expand: '${name}' of '${repo.name}' is not a relation field`);
    const options = (raw === true || raw === null ? {} : raw) as ExpandOptions;
    if (typeof options !== 'object' || Array.isArray(options)) throw new ObjectQLError('INVALID_REQUEST', `expand.${name} must be an object of options`);
    if (options.expand) {
      const target = repo.engine.scopedRepo(field.reference_to!, repo.request, repo.unit);
      checkExpand(target, options.expand, depth + 1);
    }
    out[name] = { options, target: field.reference_to!, multiple: Boolean(field.multiple) };
  }
  return out;
}

export async function expandRecords(repo: ObjectRepository, rows: DataRecord[], expand: CheckedExpand, depth: number): Promise<void> {
  for (const [name, { options, target, multiple }] of Object.entries(expand)) {
    const ids = [...new Set(rows.flatMap((r) => (Array.isArray(r[name]) ? r[name] : r[name] == null ? [] : [r[name]]) as string[]))];
    let byId = new Map<string, DataRecord>();
    let order: string[] = [];
    if (ids.length > 0) {
      const related = await repo.engine.scopedRepo(target, repo.request, repo.unit).findWith(
        {
          fields: options.fields ? [...new Set(['id', ...options.fields])] : undefined,
          filters: options.filters,
          filter: { field: 'id', op: 'in', value: ids },
          sort: options.sort,
          expand: options.expand,
        },
        'find',
        { depth, unlimitedTop: true },
      );
      byId = new Map(related.items.map((r) => [r.id as string, r]));
      order = related.items.map((r) => r.id as string);
    }
    for (const row of rows) {
      if (!multiple) {
        row[name] = row[name] == null ? null : (byId.get(row[name] as string) ?? null);
        continue;
      }
      const own = new Set((row[name] ?? []) as string[]);
      const list = (options.sort ? order.filter((id) => own.has(id)) : [...own].filter((id) => byId.has(id))).map((id) => byId.get(id)!);
      row[name] = options.top !== undefined ? list.slice(0, options.top) : list;
    }
  }
}
