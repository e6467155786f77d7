/**
 * `<object>.object.yml` → ObjectDefinition: system fields around the declared ones, labels
 * defaulted, indexes checked, action declarations and the file's own validation rules parsed.
 * Actions get their handlers (and hooks their descriptors) later, from the code files.
 */
import type { ActionParam, FieldDefinition, IndexDefinition, ObjectDefinition } from './types';
import { SYSTEM_FIELDS } from './types';
import { indexSchema, objectFileSchema, type ActionDeclInput } from './object-schema';
import { NAME_PATTERN, normaliseField, normaliseParam } from './normalise-field';
import { countingReport, formatPath, type PathSegment, type Report } from './problems';
import { parseRule, parseRules, type RuleContext } from './rule-schema';
import { systemFieldsFirst, systemFieldsLast } from './system-fields';
import { titleCase } from './title-case';
import { describeValue, parseWith } from './zod-issues';
import { isPlainObject } from '../util/objects';

/** An action as declared in the object file, before the code file's part is merged in. */
export interface DeclaredAction {
  name: string;
  type?: 'record' | 'global';
  label?: string;
  description?: string;
  params?: Record<string, ActionParam>;
}

export interface ObjectDraft {
  def: ObjectDefinition;
  declaredActions: Record<string, DeclaredAction>;
  /** Explicit rule names so far (validation files add to them). */
  ruleNames: Map<string, string>;
}

/**
 * Every problem is reported. Returns undefined when the fields or indexes are broken; problems in
 * rules or action declarations keep the draft (the load fails anyway, with the other files checked).
 */
export function buildObject(name: string, content: unknown, file: string, outer: Report): ObjectDraft | undefined {
  const { report, count } = countingReport(outer);
  if (!NAME_PATTERN.test(name)) {
    report([], `invalid object name '${name}' (from the file name); use letters, digits and _ (not starting with a digit)`);
  }
  const input = parseWith(objectFileSchema, content ?? {}, [], report);
  if (!input) return undefined;

  const fields: Record<string, FieldDefinition> = {};
  for (const f of systemFieldsFirst()) fields[f.name] = f;
  for (const [fname, finput] of Object.entries(input.fields ?? {})) {
    const at: PathSegment[] = ['fields', fname];
    if (!NAME_PATTERN.test(fname)) {
      report(at, 'invalid field name; use letters, digits and _ (not starting with a digit)');
    } else if ((SYSTEM_FIELDS as readonly string[]).includes(fname)) {
      report(at, `'${fname}' is a system field (${SYSTEM_FIELDS.join(', ')}); it cannot be declared`);
    }
    fields[fname] = normaliseField(fname, finput, at, report);
  }
  for (const f of systemFieldsLast()) fields[f.name] = f;
  checkRenames(fields, report);

  const def: ObjectDefinition = {
    name,
    label: input.label ?? titleCase(name),
    ...(input.icon !== undefined ? { icon: input.icon } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    datasource: input.datasource ?? 'default',
    fields,
    indexes: buildIndexes(name, input.indexes, fields, report),
    actions: {},
    rules: [],
    hooks: [],
    source: file,
  };

  // Fields and indexes are what other files build on; past this point a problem is reported but
  // the draft is kept, so the object's validation, permission and data files are still checked.
  if (count() > 0) return undefined;

  const ruleNames = new Map<string, string>();
  const ctx: RuleContext = { object: name, fields, names: ruleNames, where: file };
  def.rules.push(...parseRules(input.validation?.rules ?? [], ['validation', 'rules'], ctx, report));
  for (const [fname, finput] of Object.entries(input.fields ?? {})) {
    (finput.validations ?? []).forEach((v, i) => {
      if (v.field !== undefined && v.field !== fname) {
        report(
          ['fields', fname, 'validations', i, 'field'],
          `a rule under field '${fname}' cannot name another field ('${typeof v.field === 'string' ? v.field : JSON.stringify(v.field)}')`,
        );
        return;
      }
      const rule = parseRule(fieldShorthandRule(fname, v), ['fields', fname, 'validations', i], ctx, report);
      if (rule) def.rules.push(rule);
    });
  }

  const declaredActions: Record<string, DeclaredAction> = {};
  for (const [aname, ainput] of Object.entries(input.actions ?? {})) {
    declaredActions[aname] = buildDeclaredAction(aname, ainput, ['actions', aname], report);
  }

  return { def, declaredActions, ruleNames };
}

/** A `renamed_from` may not name a field that still exists, nor the same former name as another field. */
function checkRenames(fields: Record<string, FieldDefinition>, report: Report): void {
  const claimed = new Map<string, string>();
  for (const [fname, field] of Object.entries(fields)) {
    const from = field.renamed_from;
    if (from === undefined || from === fname) continue;
    const at: PathSegment[] = ['fields', fname, 'renamed_from'];
    if (fields[from]) report(at, `'${from}' is still a field of this object; a field renamed from it cannot keep both`);
    else if (claimed.has(from)) report(at, `'${from}' is already the former name of field '${claimed.get(from)}'`);
    else claimed.set(from, fname);
  }
}

/** A rule under `fields.<f>.validations` names its field implicitly. */
function fieldShorthandRule(field: string, raw: Record<string, unknown>): Record<string, unknown> {
  switch (raw.type) {
    case 'unique':
      return { fields: [field], ...raw };
    case 'conditional':
      return { required: [field], ...raw };
    default:
      return { field, ...raw };
  }
}

function buildIndexes(object: string, raw: unknown, fields: Record<string, FieldDefinition>, report: Report): IndexDefinition[] {
  if (raw === undefined || raw === null) return [];
  let items: Array<{ at: PathSegment[]; value: unknown }>;
  if (Array.isArray(raw)) {
    const list: unknown[] = raw;
    items = list.map((value, i) => ({ at: ['indexes', i], value }));
  } else if (isPlainObject(raw)) {
    items = Object.entries(raw).map(([name, spec]) => ({
      at: ['indexes', name],
      value: Array.isArray(spec) ? { name, fields: spec } : isPlainObject(spec) ? { name, ...spec } : spec,
    }));
  } else {
    report(
      ['indexes'],
      `expected a list of {name?, fields, unique?} or a map from index name to {fields, unique?}, got ${describeValue(raw)}`,
    );
    return [];
  }
  const names = new Map<string, string>();
  const out: IndexDefinition[] = [];
  for (const { at, value } of items) {
    const idx = parseWith(indexSchema, value, at, report);
    if (!idx) continue;
    idx.fields.forEach((f, j) => {
      if (!fields[f]) report([...at, 'fields', j], `unknown field '${f}' of object '${object}'`);
    });
    const name = idx.name ?? `${object}_${idx.fields.join('_')}_idx`;
    const first = names.get(name);
    if (first !== undefined) report([...at, 'name'], `duplicate index name '${name}' (also ${first})`);
    else names.set(name, formatPath(at));
    out.push({ name, fields: idx.fields, unique: idx.unique ?? false });
  }
  return out;
}

export function buildDeclaredAction(name: string, input: ActionDeclInput, at: PathSegment[], report: Report): DeclaredAction {
  if (!NAME_PATTERN.test(name)) report(at, 'invalid action name; use letters, digits and _ (not starting with a digit)');
  if (input.name !== undefined && input.name !== name)
    report([...at, 'name'], `must equal the action's key '${name}' (got '${input.name}')`);
  const action: DeclaredAction = { name };
  if (input.type !== undefined) action.type = input.type;
  if (input.label !== undefined) action.label = input.label;
  if (input.description !== undefined) action.description = input.description;
  if (input.params !== undefined) {
    action.params = {};
    for (const [pname, pinput] of Object.entries(input.params)) {
      action.params[pname] = normaliseParam(pname, pinput, [...at, 'params', pname], report);
    }
  }
  return action;
}
