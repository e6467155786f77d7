/**
 * Which metadata types a folder may hold: the spec's types
 * (docs/spec.md, "Metadata definition files"), the two code kinds, and the custom types the
 * config declares (`metadataTypes`). A file of any other type stops start-up: one letter off a
 * known type (`invoice.permissions.yml`) would otherwise load as a custom type and the object
 * would run without its permissions.
 */
import { distance } from 'fastest-levenshtein';

/** The spec's YAML types. */
export const BUILT_IN_TYPES = ['object', 'app', 'workflow', 'permission', 'validation', 'data', 'page', 'view', 'form', 'report', 'menu'];

/** `<object>.hook.ts` and `<object>.action.ts`: code, never YAML. */
export const CODE_TYPES = ['hook', 'action'];

/** YAML types whose file applies rules to an object: one of them named as code or JSON is never loaded. */
const GUARDING_TYPES = ['object', 'permission', 'validation'];

/** Names people reach for that are not near in spelling. */
const SYNONYMS: Record<string, string> = {
  acl: 'permission',
  perm: 'permission',
  perms: 'permission',
  rule: 'validation',
  rules: 'validation',
  validate: 'validation',
  validator: 'validation',
  seed: 'data',
  seeds: 'data',
  trigger: 'hook',
  triggers: 'hook',
};

/** A custom type's name: what can stand between the two dots of a file name. */
export const CUSTOM_TYPE_NAME = /^[A-Za-z0-9_-]+$/;

/** Why a custom type cannot be declared, or undefined when it can. */
export function customTypeProblem(type: string): string | undefined {
  if (!CUSTOM_TYPE_NAME.test(type)) return `'${type}' is not a type name (letters, digits, _ and - only)`;
  if (BUILT_IN_TYPES.includes(type)) return `'${type}' is built in; list only custom types`;
  if (CODE_TYPES.includes(type)) return `'${type}' files are code (<object>.${type}.ts), not a metadata type`;
  return undefined;
}

export class MetadataTypes {
  private readonly yamlTypes: string[];

  constructor(custom: readonly string[] = []) {
    this.yamlTypes = [...BUILT_IN_TYPES, ...custom];
  }

  /** Why `<identifier>.<type>.yml` is not loaded, or undefined when its type is known. */
  yamlProblem(identifier: string, type: string, ext: string): string | undefined {
    if (this.yamlTypes.includes(type)) return undefined;
    const meant = closest(type, [...this.yamlTypes, ...CODE_TYPES], 'loose');
    const declare = `a custom type must be declared in the config: metadataTypes: ['${type}']`;
    if (meant && CODE_TYPES.includes(meant)) {
      return `'${type}' is not a metadata type: ${meant} files are code, name it ${identifier}.${meant}.ts (or .js); ${declare}`;
    }
    if (meant) return `'${type}' is not a metadata type: did you mean '${meant}' (${identifier}.${meant}${ext})? Otherwise ${declare}`;
    return `unknown metadata type '${type}' (known: ${this.yamlTypes.join(', ')}); ${declare}`;
  }

  /** Why a code file `<identifier>.<type>.ts` looks like a misnamed hook, action or rule file; undefined for a helper module. */
  codeProblem(identifier: string, type: string): string | undefined {
    if (CODE_TYPES.includes(type)) return undefined;
    const meant = closest(type, [...CODE_TYPES, ...GUARDING_TYPES], 'strict');
    if (!meant) return undefined;
    if (CODE_TYPES.includes(meant))
      return `'${type}' is not a code file type: did you mean ${identifier}.${meant}.ts? It would not be loaded`;
    return `${meant} files are YAML: name it ${identifier}.${meant}.yml; as code it would not be loaded`;
  }

  /** Why `<identifier>.<type>.json` looks like a metadata file that would not be loaded; undefined otherwise. */
  jsonProblem(identifier: string, type: string): string | undefined {
    const meant = this.yamlTypes.includes(type) ? type : closest(type, [...this.yamlTypes, ...CODE_TYPES], 'strict');
    if (!meant || CODE_TYPES.includes(meant)) return undefined;
    return `metadata files are YAML (JSON is YAML too): name it ${identifier}.${meant}.yml; as .json it would not be loaded`;
  }
}

/**
 * The known type `type` most likely meant, if any. 'loose' (a YAML type nobody declared): a
 * synonym, or any spelling within one edit of a short name, two of a longer one; 'strict' (a file that may well
 * be something else, such as a helper module): the same name in another case or the plural, or
 * one edit that keeps the first letter.
 */
function closest(type: string, known: readonly string[], mode: 'loose' | 'strict'): string | undefined {
  const t = type.toLowerCase();
  const synonym = mode === 'loose' ? SYNONYMS[t] : undefined;
  if (synonym && known.includes(synonym)) return synonym;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(t, k);
    const near = mode === 'loose' ? d <= (k.length <= 4 ? 1 : 2) : d === 0 || t === `${k}s` || (d === 1 && t[0] === k[0]);
    if (near && d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}
