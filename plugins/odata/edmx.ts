/**
 * The $metadata document (CSDL XML, EDMX 4.0) of what one caller may read: one schema in the
 * namespace `ObjectQL`, an EntityType per object (key `id`), a Property per readable field typed
 * by the spec's type mapping (docs/spec.md, "Type mapping"), a NavigationProperty per relation whose target the caller may read,
 * and the EntityContainer `Container` with an EntitySet per object. Labels and descriptions are
 * Core.Description / Core.LongDescription annotations; a property holding JSON text (file, image,
 * object, json fields) is marked Core.MediaType application/json.
 *
 * A single relation's navigation property has a ReferentialConstraint (its foreign key → the
 * target's id) and, with the target's one-to-many navigation property going back, a Partner on
 * both sides. Date-times and times of day carry Precision="3": the engine keeps milliseconds.
 * What the service supports is declared by the Capabilities and Aggregation annotations of
 * capabilities.ts. Pure.
 */
import { JSON_VALUE_TYPES, type FieldDefinition, type ObjectDefinition } from '../../kernel';
import { AGGREGATION_URI, CAPABILITIES_URI, capabilityAnnotations, type CapabilitySettings } from './capabilities';
import type { Relation } from './model';

export const NAMESPACE = 'ObjectQL';

const CORE = 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml';

/** The spec's type mapping; file, image, object and json values are JSON text in an Edm.String. */
const EDM_TYPES: Record<FieldDefinition['type'], string> = {
  text: 'Edm.String',
  textarea: 'Edm.String',
  email: 'Edm.String',
  url: 'Edm.String',
  phone: 'Edm.String',
  number: 'Edm.Double',
  currency: 'Edm.Double',
  percent: 'Edm.Double',
  auto_number: 'Edm.Int32',
  boolean: 'Edm.Boolean',
  date: 'Edm.Date',
  datetime: 'Edm.DateTimeOffset',
  time: 'Edm.TimeOfDay',
  select: 'Edm.String',
  lookup: 'Edm.String',
  master_detail: 'Edm.String',
  file: 'Edm.String',
  image: 'Edm.String',
  object: 'Edm.String',
  json: 'Edm.String',
  formula: 'Edm.String',
};

/** The Edm type of a field: a multiple field (other than the JSON-valued ones) is a collection. */
export function edmType(field: FieldDefinition): string {
  const type = EDM_TYPES[field.type];
  return field.multiple && !JSON_VALUE_TYPES.has(field.type) && field.type !== 'auto_number' && field.type !== 'formula'
    ? `Collection(${type})`
    : type;
}

export interface EdmxObject {
  def: ObjectDefinition;
  readable: ReadonlySet<string>;
  /**
   * The navigation properties in the document: the relations whose field is readable and whose
   * target is in the document, then the one-to-many ones (`reverse`) whose target is in the
   * document with its relation field readable.
   */
  relations: Relation[];
}

/** Time types whose values carry milliseconds (toISOString, and times of day with '.sss'). */
const PRECISE = new Set(['Edm.DateTimeOffset', 'Edm.TimeOfDay']);

export const DEFAULT_CAPABILITIES: CapabilitySettings = { maxExpandDepth: 3, enableSearch: true, enableBatch: true };

export function buildEdmx(objects: EdmxObject[], capabilities: CapabilitySettings = DEFAULT_CAPABILITIES): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">',
    `<edmx:Reference Uri="${CORE}"><edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/></edmx:Reference>`,
    `<edmx:Reference Uri="${CAPABILITIES_URI}"><edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Capabilities"/></edmx:Reference>`,
    `<edmx:Reference Uri="${AGGREGATION_URI}"><edmx:Include Namespace="Org.OData.Aggregation.V1" Alias="Aggregation"/></edmx:Reference>`,
    '<edmx:DataServices>',
    `<Schema Namespace="${NAMESPACE}" xmlns="http://docs.oasis-open.org/odata/ns/edm">`,
  ];
  // A Partner only where the navigation property going back is in the document too.
  const navs = new Set(objects.flatMap((o) => o.relations.map((r) => `${o.def.name}/${r.nav}`)));
  const partnerOf = (r: Relation) => (r.partner !== undefined && navs.has(`${r.target}/${r.partner}`) ? r.partner : undefined);
  const defs = new Map(objects.map((o) => [o.def.name, o.def]));
  for (const o of objects) out.push(...entityType(o, partnerOf, defs));
  out.push('<EntityContainer Name="Container">');
  for (const { def, relations } of objects) {
    const bindings = relations.map((r) => `<NavigationPropertyBinding Path="${r.nav}" Target="${r.target}"/>`);
    out.push(
      bindings.length
        ? `<EntitySet Name="${def.name}" EntityType="${NAMESPACE}.${def.name}">${bindings.join('')}</EntitySet>`
        : `<EntitySet Name="${def.name}" EntityType="${NAMESPACE}.${def.name}"/>`,
    );
  }
  out.push('</EntityContainer>');
  out.push(...capabilityAnnotations(`${NAMESPACE}.Container`, objects, capabilities));
  out.push('</Schema>', '</edmx:DataServices>', '</edmx:Edmx>');
  return out.join('\n');
}

function entityType(
  { def, readable, relations }: EdmxObject,
  partnerOf: (r: Relation) => string | undefined,
  defs: ReadonlyMap<string, ObjectDefinition>,
): string[] {
  const navs = new Map(relations.filter((r) => !r.reverse).map((r) => [r.field, r]));
  const lines = [`<EntityType Name="${def.name}">`, '<Key><PropertyRef Name="id"/></Key>'];
  lines.push(...annotations(def.label, def.description));
  for (const field of Object.values(def.fields)) {
    if (!readable.has(field.name)) continue;
    const attrs = [`Name="${field.name}"`, `Type="${edmType(field)}"`];
    if (field.name === 'id' || (field.required && !field.multiple)) attrs.push('Nullable="false"');
    if (field.max_length !== undefined && EDM_TYPES[field.type] === 'Edm.String' && !JSON_VALUE_TYPES.has(field.type))
      attrs.push(`MaxLength="${field.max_length}"`);
    if (PRECISE.has(EDM_TYPES[field.type])) attrs.push('Precision="3"');
    const notes = annotations(field.label, field.description);
    if (JSON_VALUE_TYPES.has(field.type)) notes.push('<Annotation Term="Core.MediaType" String="application/json"/>');
    lines.push(element('Property', attrs, notes));
    const nav = navs.get(field.name);
    if (nav) {
      const type = `${NAMESPACE}.${nav.target}`;
      const attrs = [`Name="${nav.nav}"`, `Type="${nav.multiple ? `Collection(${type})` : type}"`];
      const partner = partnerOf(nav);
      if (partner) attrs.push(`Partner="${partner}"`);
      // A foreign key holding one id: the constraint that lets clients join (CAP's ON condition).
      const constraint = nav.multiple ? [] : [`<ReferentialConstraint Property="${nav.field}" ReferencedProperty="id"/>`];
      lines.push(element('NavigationProperty', attrs, [...constraint, ...annotations(`${field.label} (record)`)]));
    }
  }
  for (const nav of relations.filter((r) => r.reverse)) {
    const attrs = [`Name="${nav.nav}"`, `Type="Collection(${NAMESPACE}.${nav.target})"`];
    const partner = partnerOf(nav);
    if (partner) attrs.push(`Partner="${partner}"`);
    const target = defs.get(nav.target);
    const via = target?.fields[nav.field]?.label ?? nav.field;
    lines.push(
      element(
        'NavigationProperty',
        attrs,
        annotations(`${target?.label ?? nav.target} records whose ${via} is this ${def.label ?? def.name}`),
      ),
    );
  }
  lines.push('</EntityType>');
  return lines;
}

function element(name: string, attrs: string[], children: string[]): string {
  return children.length ? `<${name} ${attrs.join(' ')}>${children.join('')}</${name}>` : `<${name} ${attrs.join(' ')}/>`;
}

function annotations(label: string | undefined, description?: string): string[] {
  const out: string[] = [];
  if (label) out.push(`<Annotation Term="Core.Description" String="${escapeXml(label)}"/>`);
  if (description) out.push(`<Annotation Term="Core.LongDescription" String="${escapeXml(description)}"/>`);
  return out;
}

/** Text for an XML attribute: markup escaped, line breaks and tabs kept as character references, characters XML cannot hold dropped. */
export function escapeXml(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters XML 1.0 cannot hold are what this removes
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/[&<>"'\t\n\r]/g, (c) => ESCAPES[c]);
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};
