/**
 * Hook and action code files (`<object>.hook.ts|js`, `<object>.action.ts|js`), loaded with jiti so
 * TypeScript works without a build step. A hook file's default export (or module.exports) maps
 * hook events to a function or {handler, description}; an action file exports, by action name, a
 * function, {handler} or a full {type, label, description, params, handler}.
 */
import * as path from 'node:path';
import { createSourceLoader } from '../util/jiti';
import { z } from 'zod';
import type { HookContext } from '../engine/types';
import type { ActionHandler, ActionParam, HookDescriptor, HookEvent } from './types';
import { HOOK_EVENTS } from './types';
import { actionTypeSchema, paramSchema } from './object-schema';
import { NAME_PATTERN, normaliseParam } from './normalise-field';
import { countingReport, type Report } from './problems';
import { describeValue, parseWith } from './zod-issues';
import { isPlainObject } from '../util/objects';

export type HookHandler = (ctx: HookContext) => unknown;

export interface HookModule {
  object: string;
  source: string;
  handlers: Partial<Record<HookEvent, HookHandler>>;
  descriptors: HookDescriptor[];
}

/** An action as a code file gives it, before it is merged with the object file's declaration. */
export interface CodeAction {
  type?: 'record' | 'global';
  label?: string;
  description?: string;
  params?: Record<string, ActionParam>;
  handler?: ActionHandler;
}

export type CodeImporter = (file: string) => Promise<unknown>;

/** One importer per load: nothing is kept at module level. */
export function createCodeImporter(): CodeImporter {
  const jiti = createSourceLoader(__filename);
  return (file) => jiti.import(file, { default: true });
}

/** Imports a code file; a syntax error or a throw at import time is reported on the file. */
export async function importCode(importer: CodeImporter, file: string, report: Report): Promise<Record<string, unknown> | undefined> {
  let mod: unknown;
  try {
    mod = await importer(file);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    report(
      [],
      `cannot load: ${message
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(' ')}`,
    );
    return undefined;
  }
  if (!isPlainObject(mod)) {
    report([], `must export an object (default export or module.exports), got ${describeValue(mod)}`);
    return undefined;
  }
  return mod;
}

function exportedKeys(mod: Record<string, unknown>): string[] {
  return Object.keys(mod).filter((k) => k !== '__esModule');
}

const hookObjectSchema = z.strictObject({
  handler: z.custom<HookHandler>((v) => typeof v === 'function', {
    error: (iss) => (iss.input === undefined ? 'is required' : 'must be a function'),
  }),
  description: z.string().optional(),
});

export function readHookModule(mod: Record<string, unknown>, file: string, object: string, outer: Report): HookModule | undefined {
  const { report, count } = countingReport(outer);
  const handlers: Partial<Record<HookEvent, HookHandler>> = {};
  const descriptors: HookDescriptor[] = [];
  const base = path.basename(file);
  for (const key of exportedKeys(mod)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(key)) {
      report([key], `unknown hook event; expected one of ${HOOK_EVENTS.join(', ')}`);
      continue;
    }
    const event = key as HookEvent;
    const value = mod[key];
    let handler: HookHandler | undefined;
    let description: string | undefined;
    if (typeof value === 'function') {
      handler = value as HookHandler;
    } else if (isPlainObject(value)) {
      const parsed = parseWith(hookObjectSchema, value, [key], report);
      handler = parsed?.handler;
      description = parsed?.description;
    } else {
      report([key], `must be a function or {handler, description}, got ${describeValue(value)}`);
    }
    if (handler) {
      handlers[event] = handler;
      descriptors.push({ event, description: description ?? `${event} hook (${base})` });
    }
  }
  if (count() > 0) return undefined;
  descriptors.sort((a, b) => HOOK_EVENTS.indexOf(a.event) - HOOK_EVENTS.indexOf(b.event));
  return { object, source: file, handlers, descriptors };
}

const actionObjectSchema = z.strictObject({
  name: z.string().optional(),
  type: actionTypeSchema.optional(),
  label: z.string().optional(),
  description: z.string().optional(),
  params: z.record(z.string(), paramSchema).optional(),
  handler: z.custom<ActionHandler>((v) => typeof v === 'function', { error: 'must be a function' }).optional(),
});

export function readActionModule(mod: Record<string, unknown>, outer: Report): Record<string, CodeAction> | undefined {
  const { report, count } = countingReport(outer);
  const actions: Record<string, CodeAction> = {};
  for (const name of exportedKeys(mod)) {
    const value = mod[name];
    if (!NAME_PATTERN.test(name)) {
      report([name], 'invalid action name; use letters, digits and _ (not starting with a digit)');
      continue;
    }
    if (typeof value === 'function') {
      actions[name] = { handler: value as ActionHandler };
      continue;
    }
    if (!isPlainObject(value)) {
      report([name], `must be a function (the handler) or {handler, type, label, description, params}, got ${describeValue(value)}`);
      continue;
    }
    const parsed = parseWith(actionObjectSchema, value, [name], report);
    if (!parsed) continue;
    if (parsed.name !== undefined && parsed.name !== name)
      report([name, 'name'], `must equal the export name '${name}' (got '${parsed.name}')`);
    const action: CodeAction = {};
    if (parsed.type !== undefined) action.type = parsed.type;
    if (parsed.label !== undefined) action.label = parsed.label;
    if (parsed.description !== undefined) action.description = parsed.description;
    if (parsed.handler !== undefined) action.handler = parsed.handler;
    if (parsed.params !== undefined) {
      action.params = {};
      for (const [pname, pinput] of Object.entries(parsed.params)) {
        action.params[pname] = normaliseParam(pname, pinput, [name, 'params', pname], report);
      }
    }
    actions[name] = action;
  }
  return count() > 0 ? undefined : actions;
}
