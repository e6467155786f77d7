/**
 * The metadata registry: loads every metadata folder once at start-up, validates each definition
 * (a malformed file stops start-up with the file, the path inside it and what is wrong; one load
 * reports every problem it finds) and serves precomputed lookups. Nothing is kept at module level.
 */
import type { Logger } from 'pino';
import { ObjectQLError } from '../errors';
import type { MetadataEntry, ObjectDefinition } from './types';
import { buildObject, type ObjectDraft } from './build-object';
import { parseDataFile } from './data-file';
import { deriveFieldValidations } from './field-validations';
import { findMetadataFiles, type FoundFile } from './find-files';
import { createCodeImporter, importCode, readActionModule, readHookModule, type CodeAction, type HookModule } from './load-code';
import { mergeActions } from './merge-actions';
import { customTypeProblem, MetadataTypes } from './metadata-types';
import { parsePermissions } from './permission-schema';
import { ProblemList } from './problems';
import { readYaml } from './read-yaml';
import { checkRelatedNames } from './relations';
import { nameRules, parseRules, validationFileSchema } from './rule-schema';
import { describeValue, parseWith } from './zod-issues';
import { isPlainObject } from '../util/objects';

export { MetadataError, type MetadataProblem } from './metadata-error';
export type { HookModule } from './load-code';

export interface LoadOptions {
  logger?: Logger;
  /** Custom metadata types (config `metadataTypes`): besides the spec's, the only YAML types loaded. */
  customTypes?: readonly string[];
  /** Told of every change made at run time (the metadata API's label/description update). */
  onChange?: (change: MetadataChange) => void;
}

/** A change to loaded metadata, made at run time. */
export interface MetadataChange {
  /** The registry's revision after the change. */
  revision: number;
  object: string;
  changed: { label?: string; description?: string };
}

interface LoadedYaml extends FoundFile {
  content: unknown;
}

interface RegistryState {
  objects: Map<string, ObjectDefinition>;
  sortedObjects: ObjectDefinition[];
  entries: Map<string, Map<string, MetadataEntry>>;
  data: Map<string, Record<string, unknown>[]>;
  hookModules: HookModule[];
}

export class MetadataRegistry {
  private currentRevision = 0;

  private constructor(
    private readonly state: RegistryState,
    private readonly onChange?: (change: MetadataChange) => void,
  ) {}

  /**
   * Goes up by one with every change made at run time. What is built from metadata (an API
   * document, a schema) is current while the revision it was built at is.
   */
  get revision(): number {
    return this.currentRevision;
  }

  /** Loads the given (absolute) folders; throws MetadataError listing every problem found. */
  static async load(folders: string[], options: LoadOptions = {}): Promise<MetadataRegistry> {
    const customTypes = options.customTypes ?? [];
    for (const type of customTypes) {
      const problem = customTypeProblem(type);
      if (problem) throw new TypeError(`customTypes (config metadataTypes): ${problem}`);
    }
    const problems = new ProblemList();
    const found = dropDuplicates(findMetadataFiles(folders, problems, new MetadataTypes(customTypes)), problems);

    // 1. YAML files: parse, check `name:`, keep every one as an entry of its type.
    const yamlFiles: LoadedYaml[] = [];
    const entries = new Map<string, Map<string, MetadataEntry>>();
    for (const f of found.filter((x) => x.kind === 'yaml')) {
      const result = readYaml(f.file);
      if (!result.ok) {
        problems.add(f.file, [], result.reason, result.line);
        continue;
      }
      problems.addSource(f.file, result.doc, result.lines);
      let content = result.value;
      if (f.type === 'object' && content === null) content = {};
      if (isPlainObject(content) && content.name !== undefined && content.name !== f.identifier) {
        problems.add(
          f.file,
          ['name'],
          `must equal the identifier '${f.identifier}' from the file name (got ${describeValue(content.name)})`,
        );
      }
      const entryContent = isPlainObject(content) ? { ...content, name: f.identifier } : content;
      const byId = entries.get(f.type) ?? new Map<string, MetadataEntry>();
      entries.set(f.type, byId);
      byId.set(f.identifier, { type: f.type, id: f.identifier, content: entryContent, source: f.file });
      yamlFiles.push({ ...f, content });
      options.logger?.debug({ file: f.file, type: f.type, id: f.identifier }, 'metadata file read');
    }
    if (!entries.has('object')) entries.set('object', new Map());
    const ofType = (type: string) => yamlFiles.filter((f) => f.type === type);

    // 2. Objects.
    // Every object file, also one that did not parse (reported above): its other files are not
    // told that there is no such object, which would hide the real mistake behind a wrong one.
    const declared = new Set(found.filter((f) => f.kind === 'yaml' && f.type === 'object').map((f) => f.identifier));
    const drafts = new Map<string, ObjectDraft>();
    for (const f of ofType('object')) {
      const draft = buildObject(f.identifier, f.content, f.file, problems.for(f.file));
      if (draft) drafts.set(f.identifier, draft);
    }
    /** The object a per-object file belongs to; undefined (and reported) when there is no such object. */
    const target = (f: FoundFile): ObjectDraft | undefined => {
      if (!declared.has(f.identifier)) {
        problems.add(f.file, [], `there is no object '${f.identifier}' for this ${f.type} file (expected ${f.identifier}.object.yml)`);
        return undefined;
      }
      return drafts.get(f.identifier); // undefined when the object file itself is broken (already reported)
    };

    // 3. Validation, permission and data files.
    for (const f of ofType('validation')) {
      const draft = target(f);
      if (!draft) continue;
      const report = problems.for(f.file);
      const input = parseWith(validationFileSchema, f.content, [], report);
      if (!input) continue;
      const base = Array.isArray(f.content) ? [] : ['rules'];
      const ctx = { object: draft.def.name, fields: draft.def.fields, names: draft.ruleNames, where: f.file };
      draft.def.rules.push(...parseRules(input.rules, base, ctx, report));
    }
    for (const f of ofType('permission')) {
      const draft = target(f);
      if (!draft) continue;
      const permissions = parsePermissions(f.content, draft.def.name, draft.def.fields, problems.for(f.file));
      if (permissions) draft.def.permissions = permissions;
    }
    const data = new Map<string, Record<string, unknown>[]>();
    for (const f of ofType('data')) {
      const draft = target(f);
      if (!draft) continue;
      const records = parseDataFile(f.content, draft.def.name, draft.def.fields, problems.for(f.file));
      if (records) data.set(draft.def.name, records);
    }

    // 4. References between objects (every object file is known now).
    for (const { def, declaredActions } of drafts.values()) {
      const report = problems.for(def.source ?? def.name);
      for (const field of Object.values(def.fields)) {
        if (field.reference_to !== undefined && !declared.has(field.reference_to)) {
          report(['fields', field.name, 'reference_to'], `unknown object '${field.reference_to}'`);
        }
      }
      for (const action of Object.values(declaredActions)) {
        for (const [pname, param] of Object.entries(action.params ?? {})) {
          if (param.reference_to !== undefined && !declared.has(param.reference_to)) {
            report(['actions', action.name, 'params', pname, 'reference_to'], `unknown object '${param.reference_to}'`);
          }
        }
      }
    }
    checkRelatedNames(
      [...drafts.values()].map((d) => d.def),
      problems,
    );

    // 5. Hook and action code files.
    const importer = createCodeImporter();
    const hookModules: HookModule[] = [];
    const codeActions = new Map<string, { file: string; actions: Record<string, CodeAction> | undefined }>();
    for (const f of found.filter((x) => x.kind === 'code')) {
      const draft = target(f);
      const report = problems.for(f.file);
      if (!draft) continue;
      const mod = await importCode(importer, f.file, report);
      if (f.type === 'hook') {
        const hooks = mod && readHookModule(mod, f.file, f.identifier, report);
        if (hooks) {
          hookModules.push(hooks);
          draft.def.hooks = hooks.descriptors;
        }
      } else {
        const actions = mod && readActionModule(mod, report);
        codeActions.set(f.identifier, { file: f.file, actions });
        for (const [aname, action] of Object.entries(actions ?? {})) {
          for (const [pname, param] of Object.entries(action.params ?? {})) {
            if (param.reference_to !== undefined && !declared.has(param.reference_to)) {
              report([aname, 'params', pname, 'reference_to'], `unknown object '${param.reference_to}'`);
            }
          }
        }
      }
      options.logger?.debug({ file: f.file, type: f.type, object: f.identifier }, 'metadata code loaded');
    }

    // 6. Actions (declaration + code), rule names, field validations.
    for (const draft of drafts.values()) {
      const { def } = draft;
      const code = codeActions.get(def.name);
      if (code && code.actions === undefined) continue; // the action file is broken (already reported)
      def.actions = mergeActions(
        def.name,
        draft.declaredActions,
        code?.actions,
        code?.file,
        problems.for(def.source ?? def.name),
        problems.for(code?.file ?? ''),
      );
      nameRules(def.rules);
      deriveFieldValidations(def);
    }

    problems.throwIfAny();

    const objects = new Map([...drafts.values()].map((d) => [d.def.name, d.def] as const));
    const sortedObjects = [...objects.values()].sort((a, b) => compare(a.name, b.name));
    hookModules.sort((a, b) => compare(a.object, b.object));
    options.logger?.info(
      { folders, objects: sortedObjects.length, entries: [...entries.values()].reduce((n, m) => n + m.size, 0), hooks: hookModules.length },
      'metadata loaded',
    );
    return new MetadataRegistry({ objects, sortedObjects, entries, data, hookModules }, options.onChange);
  }

  /** Every object, sorted by name. */
  objects(): ObjectDefinition[] {
    return [...this.state.sortedObjects];
  }

  object(name: string): ObjectDefinition | undefined {
    return this.state.objects.get(name);
  }

  /** Every metadata type with at least one entry, plus 'object' (sorted). */
  types(): string[] {
    return [...this.state.entries.keys()].sort(compare);
  }

  /** Every entry of a type, sorted by id (objects: the parsed file merged with its name). */
  entries(type: string): MetadataEntry[] {
    return [...(this.state.entries.get(type)?.values() ?? [])].sort((a, b) => compare(a.id, b.id));
  }

  entry(type: string, id: string): MetadataEntry | undefined {
    return this.state.entries.get(type)?.get(id);
  }

  /** The records of `<object>.data.yml` (a fresh copy each call); [] when there is none. */
  initialData(object: string): Record<string, unknown>[] {
    return structuredClone(this.state.data.get(object) ?? []);
  }

  /** Loaded hook files, sorted by object. */
  hookModules(): HookModule[] {
    return [...this.state.hookModules];
  }

  /** In-memory update of an object's label / description (the metadata API's PUT). */
  setObjectInfo(name: string, patch: { label?: string; description?: string }): void {
    const def = this.state.objects.get(name);
    if (!def) throw new ObjectQLError('NOT_FOUND', `Object '${name}' not found`);
    const entry = this.state.entries.get('object')?.get(name);
    const content = entry && isPlainObject(entry.content) ? entry.content : undefined;
    if (patch.label !== undefined) {
      def.label = patch.label;
      if (content) content.label = patch.label;
    }
    if (patch.description !== undefined) {
      def.description = patch.description;
      if (content) content.description = patch.description;
    }
    this.currentRevision += 1;
    this.onChange?.({ revision: this.currentRevision, object: name, changed: { ...patch } });
  }
}

/** Keeps the first file of each identifier + type; every later one is reported naming both. */
function dropDuplicates(files: FoundFile[], problems: ProblemList): FoundFile[] {
  const first = new Map<string, string>();
  return files.filter((f) => {
    const key = `${f.kind}\0${f.type}\0${f.identifier}`;
    const other = first.get(key);
    if (other !== undefined) {
      problems.add(f.file, [], `duplicate ${f.type} '${f.identifier}': also defined in ${other}`);
      return false;
    }
    first.set(key, f.file);
    return true;
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
