/** How values look in lists and read-only places: labels for options, names for lookups, local dates. */
import type { Attachment, DataRecord, FieldDescriptor, ObjectSummary } from './types';

/** A value as text: primitives as they are, anything else as JSON. */
export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const NAME_FIELDS = ['name', 'title', 'label', 'subject', 'full_name', 'email', 'code'];
const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone']);

/** The field that names a record of `object`: name, title, ... or its first text field. */
export function nameField(object: Pick<ObjectSummary, 'fields'> | undefined): string | undefined {
  if (!object) return undefined;
  const fields = object.fields;
  const named = NAME_FIELDS.find((n) => fields[n]);
  if (named) return named;
  return Object.values(fields).find((f) => TEXT_TYPES.has(f.type) && !f.system)?.name;
}

export function recordName(record: Record<string, unknown> | null | undefined, object?: Pick<ObjectSummary, 'fields'>): string {
  if (!record) return '';
  const field = nameField(object);
  const value = field ? record[field] : undefined;
  return value === undefined || value === null || value === '' ? text(record.id ?? '') : text(value);
}

export function optionLabel(field: Pick<FieldDescriptor, 'option_labels'>, value: unknown): string {
  const key = text(value);
  return field.option_labels?.[key] ?? key;
}

export function isAttachment(value: unknown): value is Attachment {
  return typeof value === 'object' && value !== null && 'url' in value && 'name' in value;
}

export function attachments(value: unknown): Attachment[] {
  if (Array.isArray(value)) return value.filter(isAttachment);
  return isAttachment(value) ? [value] : [];
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 });
const moneyFormat = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Text for a value of `field`; `expanded` is the related record when a lookup was expanded. */
export function displayValue(field: FieldDescriptor, value: unknown, related?: ObjectSummary): string {
  if (value === null || value === undefined || value === '') return '';
  switch (field.type) {
    case 'boolean':
      return value ? 'Yes' : 'No';
    case 'select':
      return Array.isArray(value) ? value.map((v) => optionLabel(field, v)).join(', ') : optionLabel(field, value);
    case 'date': {
      const time = Date.parse(text(value));
      return Number.isNaN(time) ? text(value) : dateFormat.format(time);
    }
    case 'datetime': {
      const time = Date.parse(text(value));
      return Number.isNaN(time) ? text(value) : dateTimeFormat.format(time);
    }
    case 'currency':
      return typeof value === 'number' ? moneyFormat.format(value) : text(value);
    case 'percent':
      return typeof value === 'number' ? `${numberFormat.format(value)} %` : text(value);
    case 'number':
      return typeof value === 'number' ? numberFormat.format(value) : text(value);
    case 'lookup':
    case 'master_detail':
      if (typeof value === 'object') return recordName(value as DataRecord, related);
      return text(value);
    case 'file':
    case 'image':
      return attachments(value)
        .map((a) => a.name)
        .join(', ');
    case 'json':
    case 'object':
      return JSON.stringify(value);
    default:
      return Array.isArray(value) ? value.join(', ') : text(value);
  }
}
