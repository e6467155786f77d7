/**
 * The OData model of the metadata, as one caller sees it: entity sets are the objects the caller
 * may read (named as the objects, case-sensitive), properties the fields they may read. Each
 * relation field (lookup, master_detail) is two things in OData: the foreign key, a structural
 * property under the field's own name (Edm.String: the spec's type mapping, docs/spec.md, "Type mapping"), and a navigation
 * property `<field>_nav` to expand. Each single relation field also gives the object it points at
 * a one-to-many navigation property, named by the kernel's rule (kernel/metadata/relations.ts:
 * the field's `related_name`, default `<object>_by_<field>`), which the registry keeps apart from
 * that object's fields; so `<field>_nav` takes another `_` while a field or a one-to-many
 * navigation property has its name. Views are computed once per object and per set of readable
 * fields (the engine caches those per role set). Pure.
 */
import {
  isAnonymous,
  ObjectQLError,
  relationsOf,
  type CallerPermissions,
  type FieldDefinition,
  type ObjectDefinition,
  type User,
} from '../../kernel';
import type { ODataNavigation, ODataQueryTarget } from './query';

export interface Relation {
  /** The relation field: the foreign key property (on this object; for `reverse`, on `target`). */
  field: string;
  /** The navigation property. */
  nav: string;
  target: string;
  multiple: boolean;
  /** A one-to-many navigation property: the records of `target` whose `field` points here. */
  reverse?: boolean;
  /** The navigation property on `target` going back (the one-to-many one of a single relation, and the reverse). */
  partner?: string;
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
  private reverseCache: Map<string, Relation[]> | undefined;
  /** Per readable-field set (one per object and role set, owned by the engine): the object as the parser sees it. */
  private readonly views = new WeakMap<ReadonlySet<string>, ObjectDefinition>();

  constructor(readonly source: ModelSource) {}

  /** The relation fields of an object with their navigation property names. */
  relations(def: ObjectDefinition): Relation[] {
    let list = this.relationCache.get(def.name);
    if (!list) {
      const taken = new Set([...Object.keys(def.fields), ...this.reverse(def.name).map((r) => r.nav)]);
      list = Object.values(def.fields)
        .filter((f) => (f.type === 'lookup' || f.type === 'master_detail') && f.reference_to)
        .map((f) => {
          let nav = f.name + NAV_SUFFIX;
          while (taken.has(nav)) nav += '_';
          taken.add(nav);
          const relation: Relation = { field: f.name, nav, target: f.reference_to!, multiple: Boolean(f.multiple) };
          const partner = this.reverse(relation.target).find((r) => r.target === def.name && r.field === f.name);
          if (partner) relation.partner = partner.nav;
          return relation;
        });
      this.relationCache.set(def.name, list);
    }
    return list;
  }

  /** The one-to-many navigation properties of an object: one per single relation field pointing at it. */
  collections(def: ObjectDefinition): Relation[] {
    const list = this.reverse(def.name);
    for (const r of list) {
      const target = this.source.object(r.target);
      if (r.partner === undefined && target) r.partner = this.relations(target).find((f) => f.field === r.field)?.nav;
    }
    return list;
  }

  /** The kernel's reverse relations of an object (relationsOf), as navigation properties without their partner yet. */
  private reverse(object: string): Relation[] {
    if (!this.reverseCache) {
      this.reverseCache = new Map();
      for (const [name, list] of relationsOf(this.source.objects()))
        this.reverseCache.set(
          name,
          list
            .filter((r) => r.kind === 'reverse')
            .map((r) => ({ field: r.field, nav: r.name, target: r.target, multiple: true, reverse: true })),
        );
    }
    return this.reverseCache.get(object) ?? [];
  }

  /** The relation whose navigation property is `nav`: a relation field's, or a one-to-many one. */
  navigation(def: ObjectDefinition, nav: string): Relation | undefined {
    return this.relations(def).find((r) => r.nav === nav) ?? this.collections(def).find((r) => r.nav === nav);
  }

  /**
   * A navigation property as the query parser follows it (`object` as the caller sees it, from
   * view): a relation field's by its navigation property or its field name when the caller may
   * read the field, or a one-to-many one. The target is the related object as the caller sees it.
   * Following one into an object the caller may not read is refused here, as the engine refuses it
   * (FORBIDDEN, UNAUTHORIZED when anonymous, naming the object): checking the names inside against
   * an object that shows the caller no fields would answer 'unknown property' instead.
   */
  navigationOf(object: ObjectDefinition, name: string, user: User | undefined): ODataNavigation | undefined {
    const def = this.source.object(object.name);
    if (!def) return undefined;
    const forward = this.relations(def).find((r) => r.nav === name || r.field === name);
    const relation = forward && object.fields[forward.field] ? forward : this.collections(def).find((r) => r.nav === name);
    const target = relation && this.source.object(relation.target);
    if (!relation || !target) return undefined;
    if (!this.source.access(target.name, user).canRead) throw readDenied(target.name, user);
    const kind = relation.reverse ? 'reverse' : relation.multiple ? 'many' : 'one';
    return { name, relation: relation.reverse ? relation.nav : relation.field, kind, target: this.view(target, user) };
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
      navigation: (object, name) => this.navigationOf(object, name, user),
    };
  }
}

/** The engine's denial of reading an object (kernel/engine/permissions.ts, `denied`), worded alike. */
function readDenied(object: string, user: User | undefined): ObjectQLError {
  const details = { required_permission: 'allow_read', object, user_roles: user?.roles ?? [] };
  return isAnonymous(user)
    ? new ObjectQLError('UNAUTHORIZED', `Authentication required: anonymous callers may not read records of '${object}'`, details)
    : new ObjectQLError('FORBIDDEN', `Not allowed to read records of '${object}'`, details);
}
