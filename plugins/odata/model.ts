/**
 * The OData model of the metadata, as one caller sees it: entity sets are the objects the caller
 * may read (named as the objects, case-sensitive), properties the fields they may read. Each
 * relation field (lookup, master_detail) is two things in OData: the foreign key, a structural
 * property under the field's own name (Edm.String: the spec's type mapping, docs/spec.md, "Type mapping"), and a navigation
 * property `<field>_nav` (a `_` more while that name is taken) to expand. Views are computed once
 * per object and per set of readable fields (the engine caches those per role set). Pure.
 */
import type { CallerPermissions, FieldDefinition, ObjectDefinition, User } from '../../kernel';
import type { ODataQueryTarget } from './query';

export interface Relation {
  /** The relation field: the foreign key property. */
  field: string;
  /** The navigation property. */
  nav: string;
  target: string;
  multiple: boolean;
}

/** What the model reads: the registry's objects, its revision, and what each caller may do with an object. */
export interface ModelSource {
  objects(): ObjectDefinition[];
  object(name: string): ObjectDefinition | undefined;
  /** Goes up whenever metadata changes at run time (kernel.registry.revision). */
  revision(): number;
  access(object: string, user: User | undefined): CallerPermissions;
}

export const NAV_SUFFIX = '_nav';

export class ODataModel {
  private readonly relationCache = new Map<string, Relation[]>();
  /** Per readable-field set (one per object and role set, owned by the engine): the object as the parser sees it. */
  private readonly views = new WeakMap<ReadonlySet<string>, ObjectDefinition>();

  constructor(readonly source: ModelSource) {}

  /** The relation fields of an object with their navigation property names. */
  relations(def: ObjectDefinition): Relation[] {
    let list = this.relationCache.get(def.name);
    if (!list) {
      const taken = new Set(Object.keys(def.fields));
      list = Object.values(def.fields)
        .filter((f) => (f.type === 'lookup' || f.type === 'master_detail') && f.reference_to)
        .map((f) => {
          let nav = f.name + NAV_SUFFIX;
          while (taken.has(nav)) nav += '_';
          taken.add(nav);
          return { field: f.name, nav, target: f.reference_to!, multiple: Boolean(f.multiple) };
        });
      this.relationCache.set(def.name, list);
    }
    return list;
  }

  /** The relation whose navigation property is `nav`. */
  navigation(def: ObjectDefinition, nav: string): Relation | undefined {
    return this.relations(def).find((r) => r.nav === nav);
  }

  /** The objects the caller may read, sorted by name, each with the fields they may read. */
  visibleObjects(user: User | undefined): Array<{ def: ObjectDefinition; readable: ReadonlySet<string> }> {
    const out: Array<{ def: ObjectDefinition; readable: ReadonlySet<string> }> = [];
    for (const def of this.source.objects()) {
      const access = this.source.access(def.name, user);
      if (access.canRead) out.push({ def, readable: access.readable });
    }
    return out;
  }

  /**
   * The object as the query parser sees it for this caller: only the fields they may read (a
   * hidden field is as unknown as a missing one), plus each readable relation's navigation
   * property as a relation field of the same target (a target they may not read stays: expanding
   * it is then FORBIDDEN, as in every protocol).
   */
  view(def: ObjectDefinition, user: User | undefined): ObjectDefinition {
    const readable = this.source.access(def.name, user).readable;
    let view = this.views.get(readable);
    if (!view || view.name !== def.name) {
      const navs = new Map(this.relations(def).map((r) => [r.field, r]));
      const fields: Record<string, FieldDefinition> = {};
      for (const field of Object.values(def.fields)) {
        if (!readable.has(field.name)) continue;
        fields[field.name] = field;
        const relation = navs.get(field.name);
        if (relation) fields[relation.nav] = { ...field, name: relation.nav, required: false, unique: false };
      }
      view = { ...def, fields };
      this.views.set(readable, view);
    }
    return view;
  }

  /** The query parser's target for an object and a caller. */
  target(def: ObjectDefinition, user: User | undefined): ODataQueryTarget {
    return {
      object: this.view(def, user),
      resolve: (name: string) => {
        const target = this.source.object(name);
        return target && this.view(target, user);
      },
    };
  }
}
