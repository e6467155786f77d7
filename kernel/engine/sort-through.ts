/**
 * A sort key through a to-one relation: `project.name` on task sorts tasks by the name of their
 * project, read as the caller reads projects (their read permission, readable fields and record
 * scope: a project outside the caller's scope sorts as null, so its name cannot be inferred from
 * the order). The driver gets `{field: 'project', through: {object, field, scope}}` and sorts in
 * the store, so both objects must live on one datasource that can (capabilities.sortThrough).
 */
import { ObjectQLError } from '../errors';
import { JSON_VALUE_TYPES } from '../metadata/types';
import type { SortDirection, SortKey } from '../query/ast';
import { assertAllowed } from './permissions';
import { fieldOf } from './query-check';
import type { ObjectRepository } from './repository';

export function sortThrough(repo: ObjectRepository, path: string, dir: SortDirection): SortKey {
  const [name, target, ...deeper] = path.split('.');
  const relation = fieldOf(repo.env(), name, 'sort');
  if ((relation.type !== 'lookup' && relation.type !== 'master_detail') || relation.multiple || !relation.reference_to) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `sort: '${path}' needs '${name}' to be a relation to one record of '${repo.name}' (a lookup or master_detail field, not multiple)`,
      { field: name, object: repo.name },
    );
  }
  if (!target || deeper.length > 0) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `sort: '${path}' must name one field through one relation ('${name}.<field>'); deeper paths are not supported`,
      { field: path, object: repo.name },
    );
  }
  const related = repo.engine.scopedRepo(relation.reference_to, repo.request, repo.unit);
  const access = related.access;
  assertAllowed(access, 'read', related.name);
  const field = fieldOf(related.env(access), target, 'sort');
  if (JSON_VALUE_TYPES.has(field.type) || field.multiple) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `sort: cannot sort by '${path}' (${field.type}${field.multiple ? ', multiple' : ''} on '${related.name}')`,
      { field: target, object: related.name },
    );
  }
  if (related.compiled.def.datasource !== repo.compiled.def.datasource) {
    throw new ObjectQLError('INVALID_REQUEST', `sorting through '${name}' needs '${repo.name}' and '${related.name}' on one datasource`, {
      field: name,
      object: repo.name,
    });
  }
  if (!repo.compiled.datasource.capabilities.sortThrough) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `sort: datasource '${repo.compiled.def.datasource}' of '${repo.name}' cannot sort through a relation ('${path}')`,
      { field: name, object: repo.name },
    );
  }
  const scope = related.scopeFilter(access);
  return { field: name, dir, through: { object: related.name, field: field.name, ...(scope ? { scope } : {}) } };
}
