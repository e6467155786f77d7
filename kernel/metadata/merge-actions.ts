/**
 * An object's actions = its object-file declarations merged with its action code file. The
 * declaration wins for label, description and each param it declares; the code may add what the
 * declaration lacks; a type given by both must agree. Every action needs a handler; an action
 * with a type from neither side is 'global'.
 */
import * as path from 'node:path';
import type { ActionDefinition } from './types';
import type { DeclaredAction } from './build-object';
import type { CodeAction } from './load-code';
import type { Report } from './problems';
import { titleCase } from './title-case';

export function mergeActions(
  object: string,
  declared: Record<string, DeclaredAction>,
  code: Record<string, CodeAction> | undefined,
  codeFile: string | undefined,
  reportObject: Report,
  reportCode: Report,
): Record<string, ActionDefinition> {
  const out: Record<string, ActionDefinition> = {};
  const names = [...Object.keys(declared), ...Object.keys(code ?? {}).filter((n) => !(n in declared))];
  for (const name of names) {
    const d = declared[name];
    const c = code?.[name];
    if (d?.type !== undefined && c?.type !== undefined && d.type !== c.type) {
      reportCode([name, 'type'], `'${c.type}' differs from the declaration in the object file ('${d.type}')`);
    }
    if (!c?.handler) {
      if (!c) {
        const where = codeFile ? `export '${name}' from ${path.basename(codeFile)}` : `add ${object}.action.ts exporting '${name}'`;
        reportObject(['actions', name], `action '${name}' of object '${object}' has no handler; ${where}`);
      } else {
        reportCode([name, 'handler'], `action '${name}' of object '${object}' has no handler`);
      }
      continue;
    }
    const params = { ...(d?.params ?? {}) };
    for (const [pname, param] of Object.entries(c.params ?? {})) if (!(pname in params)) params[pname] = param;
    const description = d?.description ?? c.description;
    const action: ActionDefinition = {
      name,
      type: d?.type ?? c.type ?? 'global',
      label: d?.label ?? c.label ?? titleCase(name),
      ...(description !== undefined ? { description } : {}),
      params,
      handler: c.handler,
    };
    out[name] = action;
  }
  return out;
}
