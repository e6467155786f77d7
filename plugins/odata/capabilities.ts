/**
 * What the service supports, declared in $metadata so generic clients adapt (Org.OData.Capabilities.V1
 * and Org.OData.Aggregation.V1 annotations): per entity set, the properties that cannot be filtered
 * (JSON-valued ones: only a null test reaches them) or sorted (JSON-valued and multiple-valued
 * ones), how deep $expand and navigation paths go (maxExpandDepth), $count, $top, $skip, $search
 * (enableSearch) and $apply with the properties it can group and aggregate; for the container,
 * the $filter functions and operators understood and $batch (enableBatch). The rules are the
 * engine's (kernel/engine/query-check.ts, aggregate-check.ts), for the fields the caller may read.
 * Pure.
 */
import { JSON_VALUE_TYPES, NUMERIC_TYPES, type FieldDefinition } from '../../kernel';
import type { EdmxObject } from './edmx';

export const CAPABILITIES_URI = 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml';
export const AGGREGATION_URI = 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Aggregation.V1.xml';

export interface CapabilitySettings {
  maxExpandDepth: number;
  enableSearch: boolean;
  enableBatch: boolean;
}

/** The $apply transformations the service implements. */
export const APPLY_TRANSFORMATIONS = ['aggregate', 'groupby', 'filter', 'topcount', 'bottomcount', 'identity'];

/** The $filter functions and operators the parser reads (query/filter.ts). */
export const FILTER_FUNCTIONS = [
  'eq',
  'ne',
  'gt',
  'ge',
  'lt',
  'le',
  'and',
  'or',
  'not',
  'in',
  'contains',
  'startswith',
  'endswith',
  'length',
  'tolower',
  'toupper',
  'any',
  'all',
];

/** The Annotations elements of the schema: one for the container, one per entity set. */
export function capabilityAnnotations(container: string, objects: EdmxObject[], settings: CapabilitySettings): string[] {
  const out = [
    `<Annotations Target="${container}">`,
    `<Annotation Term="Capabilities.FilterFunctions">${collection('String', FILTER_FUNCTIONS)}</Annotation>`,
    `<Annotation Term="Capabilities.BatchSupported" Bool="${settings.enableBatch}"/>`,
    '</Annotations>',
  ];
  for (const o of objects) out.push(...entitySet(`${container}/${o.def.name}`, o, settings));
  return out;
}

function entitySet(target: string, { def, readable, relations }: EdmxObject, settings: CapabilitySettings): string[] {
  const fields = Object.values(def.fields).filter((f) => readable.has(f.name));
  const json = (f: FieldDefinition) => JSON_VALUE_TYPES.has(f.type);
  const nonFilterable = fields.filter(json).map((f) => f.name);
  const nonSortable = fields.filter((f) => json(f) || f.multiple).map((f) => f.name);
  const plain = fields.filter((f) => !json(f) && !f.multiple);
  const nonCountable = relations.filter((r) => r.multiple && !r.reverse).map((r) => r.nav);
  const depth = settings.maxExpandDepth;
  return [
    `<Annotations Target="${target}">`,
    annotation(
      'Capabilities.FilterRestrictions',
      record([
        bool('Filterable', true),
        paths('NonFilterableProperties', nonFilterable),
        `<PropertyValue Property="MaxLevels" Int="${depth}"/>`,
      ]),
    ),
    annotation('Capabilities.SortRestrictions', record([bool('Sortable', true), paths('NonSortableProperties', nonSortable)])),
    annotation(
      'Capabilities.ExpandRestrictions',
      record([bool('Expandable', true), `<PropertyValue Property="MaxLevels" Int="${depth}"/>`]),
    ),
    annotation(
      'Capabilities.CountRestrictions',
      record([bool('Countable', true), paths('NonCountableNavigationProperties', nonCountable, 'NavigationPropertyPath')]),
    ),
    '<Annotation Term="Capabilities.TopSupported" Bool="true"/>',
    '<Annotation Term="Capabilities.SkipSupported" Bool="true"/>',
    annotation('Capabilities.SearchRestrictions', record([bool('Searchable', settings.enableSearch)])),
    annotation(
      'Aggregation.ApplySupported',
      record([
        `<PropertyValue Property="Transformations">${collection('String', APPLY_TRANSFORMATIONS)}</PropertyValue>`,
        '<PropertyValue Property="Rollup" EnumMember="Aggregation.RollupType/None"/>',
        paths(
          'GroupableProperties',
          plain.map((f) => f.name),
        ),
        `<PropertyValue Property="AggregatableProperties"><Collection>${plain.map(aggregatable).join('')}</Collection></PropertyValue>`,
      ]),
    ),
    '</Annotations>',
  ];
}

/** An AggregatablePropertyType record: sum and average for numbers; min, max and countdistinct for every plain field. */
function aggregatable(field: FieldDefinition): string {
  const methods = NUMERIC_TYPES.has(field.type) ? ['sum', 'average', 'min', 'max', 'countdistinct'] : ['min', 'max', 'countdistinct'];
  return record([
    `<PropertyValue Property="Property" PropertyPath="${field.name}"/>`,
    `<PropertyValue Property="SupportedAggregationMethods">${collection('String', methods)}</PropertyValue>`,
  ]);
}

function annotation(term: string, value: string): string {
  return `<Annotation Term="${term}">${value}</Annotation>`;
}

function record(values: string[]): string {
  return `<Record>${values.filter(Boolean).join('')}</Record>`;
}

function bool(property: string, value: boolean): string {
  return `<PropertyValue Property="${property}" Bool="${value}"/>`;
}

/** A collection of property paths, or nothing when it is empty. */
function paths(property: string, names: string[], kind = 'PropertyPath'): string {
  return names.length ? `<PropertyValue Property="${property}">${collection(kind, names)}</PropertyValue>` : '';
}

function collection(element: string, values: string[]): string {
  return `<Collection>${values.map((v) => `<${element}>${v}</${element}>`).join('')}</Collection>`;
}
