import type { Datasource, DbRecord } from '../../kernel/drivers';
import type { FieldDefinition, FieldType, ObjectDefinition } from '../../kernel/metadata/types';
import type { Filter, Query } from '../../kernel/query/ast';

export const ITEM = 'tck_item';
export const OWNER = 'tck_owner';
/** Attachment fields live on an object of their own: ITEM's and OWNER's shape is pinned by other tests. */
export const DOC = 'tck_doc';
/** Money: decimal fields (currency, a percent with a scale) beside a plain number. */
export const LEDGER = 'tck_ledger';
/** The object of the value-edge tests (suite-values.ts): short and long text, a number, JSON. */
export const VALUE = 'tck_value';

/** What the suite's tests share: the datasource of the running test. */
export interface TckContext {
  readonly ds: Datasource;
}

function field(name: string, type: FieldType, extra: Partial<FieldDefinition> = {}): FieldDefinition {
  return { name, type, label: name, ...extra };
}

function systemFields(): FieldDefinition[] {
  return [
    field('id', 'text', { system: true, readonly: true }),
    field('created_at', 'datetime', { system: true, readonly: true }),
    field('created_by', 'text', { system: true, readonly: true }),
    field('updated_at', 'datetime', { system: true, readonly: true }),
    field('updated_by', 'text', { system: true, readonly: true }),
  ];
}

function object(name: string, fields: FieldDefinition[], indexes: ObjectDefinition['indexes'] = []): ObjectDefinition {
  const all = [...fields, ...systemFields()];
  return {
    name,
    label: name,
    datasource: 'default',
    fields: Object.fromEntries(all.map((f) => [f.name, f])),
    indexes,
    actions: {},
    rules: [],
    hooks: [],
  };
}

const options = (...values: string[]) => values.map((value) => ({ label: value, value }));

/** Fresh definitions of the suite's two objects. */
export function tckObjects(): ObjectDefinition[] {
  return [
    object(ITEM, [
      field('name', 'text'),
      field('qty', 'number'),
      field('target', 'number'),
      field('price', 'number', { scale: 2 }),
      field('active', 'boolean'),
      field('due', 'date'),
      field('at', 'datetime'),
      field('status', 'select', { options: options('open', 'closed', 'draft') }),
      field('tags', 'select', { multiple: true, options: options('red', 'yellow', 'fruit') }),
      field('meta', 'json'),
      field('code', 'text', { unique: true }),
      field('owner', 'lookup', { reference_to: OWNER }),
    ]),
    object(
      OWNER,
      [field('name', 'text'), field('org', 'text'), field('email', 'email')],
      [{ name: 'tck_owner_org_email', fields: ['org', 'email'], unique: true }],
    ),
  ];
}

/** The object of the attachment tests: a `file` field and an `image` field holding a list. */
export function tckAttachmentObject(): ObjectDefinition {
  return object(DOC, [field('name', 'text'), field('contract', 'file'), field('photos', 'image', { multiple: true })]);
}

/** The object of the money tests: decimal fields (exact sums) and a plain number (binary floating point). */
export function tckLedgerObject(): ObjectDefinition {
  return object(LEDGER, [
    field('kind', 'select', { options: options('in', 'out') }),
    field('amount', 'currency'),
    field('rate', 'percent', { scale: 4 }),
    field('weight', 'number'),
  ]);
}

/** The object of the value-edge tests. */
export function tckValueObject(): ObjectDefinition {
  return object(VALUE, [field('name', 'text'), field('note', 'textarea'), field('qty', 'number'), field('meta', 'json')]);
}

/** Every object the driver suite syncs. */
export function suiteObjects(): ObjectDefinition[] {
  return [...tckObjects(), tckAttachmentObject(), tckLedgerObject(), tckValueObject()];
}

/**
 * The records most query tests run against. Chosen so each operator separates them: nulls in
 * qty (c), price (d), status (d), tags (c is [], d is null); c and e share a null unique code.
 */
export const SEED: DbRecord[] = [
  {
    id: 'a',
    name: 'Apple',
    qty: 10,
    target: 10,
    price: 1.5,
    active: true,
    due: '2024-01-10',
    at: '2024-01-10T08:00:00.000Z',
    status: 'open',
    tags: ['red', 'fruit'],
    meta: { color: 'red', n: 1 },
    code: 'A-1',
  },
  {
    id: 'b',
    name: 'banana_split',
    qty: 5,
    target: 3,
    price: 2.25,
    active: false,
    due: '2024-02-01',
    at: '2024-02-01T12:30:00.000Z',
    status: 'closed',
    tags: ['yellow', 'fruit'],
    meta: null,
    code: 'B-1',
  },
  {
    id: 'c',
    name: '100% Cotton',
    qty: null,
    target: 0,
    price: 3,
    active: false,
    due: null,
    at: null,
    status: 'open',
    tags: [],
    meta: {},
    code: null,
  },
  {
    id: 'd',
    name: 'Durian',
    qty: 20,
    target: 30,
    price: null,
    active: null,
    due: '2024-03-15',
    at: '2024-03-15T23:59:59.000Z',
    status: null,
    tags: null,
    meta: null,
    code: 'D-1',
  },
  {
    id: 'e',
    name: 'apple pie',
    qty: 5,
    target: 5,
    price: 4,
    active: false,
    due: '2024-01-31',
    at: '2024-01-31T00:00:00.000Z',
    status: 'draft',
    tags: ['fruit'],
    meta: { tags: ['x'] },
    code: null,
  },
];

export async function seedItems(ds: Datasource): Promise<void> {
  for (const record of SEED) await ds.create(ITEM, structuredClone(record));
}

/** Deletes every record of the suite's objects, through the interface only. */
export async function clearAll(ds: Datasource): Promise<void> {
  for (const name of [ITEM, OWNER, DOC, LEDGER, VALUE]) {
    for (const record of await ds.find(name, { fields: ['id'] })) await ds.delete(name, String(record.id));
  }
}

/** The ids of the records a filter matches, sorted. */
export async function idsWhere(ds: Datasource, filter: Filter, object = ITEM): Promise<string[]> {
  const records = await ds.find(object, { filter, fields: ['id'] });
  return records.map((r) => String(r.id)).sort();
}

/** The ids of a query's result, in the order returned. */
export async function idsOf(ds: Datasource, query: Query): Promise<string[]> {
  return (await ds.find(ITEM, query)).map((r) => String(r.id));
}

/** A driver returns a field it was not given either as absent or as null. */
export function nullish(v: unknown): boolean {
  return v === null || v === undefined;
}
