import { expect } from 'chai';
import type { FieldDefinition, FieldType, ObjectDefinition } from '../../../kernel/metadata/types';
import { applyDefaults, checkRecordValues, normalizeFieldValue } from '../../../kernel/engine/field-values';

function f(type: FieldType, extra: Partial<FieldDefinition> = {}): FieldDefinition {
  return { name: 'x', type, label: 'X', ...extra };
}
const show = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};
const ok = (field: FieldDefinition, value: unknown): unknown => {
  const r = normalizeFieldValue(field, value);
  expect(r, show(value)).to.have.property('value');
  return (r as { value: unknown }).value;
};
const err = (field: FieldDefinition, value: unknown): string => {
  const r = normalizeFieldValue(field, value);
  expect(r, show(value)).to.have.property('error');
  return (r as { error: string }).error;
};

function objectDef(fields: Record<string, Partial<FieldDefinition> & { type: FieldType }>): ObjectDefinition {
  const all: Record<string, FieldDefinition> = {
    id: { name: 'id', type: 'text', label: 'Id', system: true },
    created_at: { name: 'created_at', type: 'datetime', label: 'Created At', system: true },
  };
  for (const [name, def] of Object.entries(fields)) all[name] = { name, label: name, ...def };
  return { name: 'task', label: 'Task', datasource: 'default', fields: all, indexes: [], actions: {}, rules: [], hooks: [] };
}

describe('kernel/engine/field-values', () => {
  describe('normalizeFieldValue: text types', () => {
    it('text / textarea take strings within min_length / max_length', () => {
      expect(ok(f('text'), 'hello')).to.equal('hello');
      expect(ok(f('textarea', { max_length: 3 }), 'héé')).to.equal('héé');
      expect(err(f('text'), 42)).to.equal('must be a string');
      expect(err(f('text', { min_length: 3 }), 'ab')).to.equal('must be at least 3 characters');
      expect(err(f('textarea', { max_length: 3 }), 'abcd')).to.equal('must be at most 3 characters');
    });
    it('email', () => {
      expect(ok(f('email'), 'ann.lee+x@mail.example.com')).to.equal('ann.lee+x@mail.example.com');
      for (const bad of ['ann', 'ann@', '@x.com', 'ann@localhost', 'a b@x.com', 'ann@x..com']) {
        expect(err(f('email'), bad)).to.equal('must be a valid email address');
      }
    });
    it('url: absolute http / https only', () => {
      expect(ok(f('url'), 'https://example.com/a?b=1')).to.equal('https://example.com/a?b=1');
      expect(ok(f('url'), 'http://localhost:3000')).to.equal('http://localhost:3000');
      for (const bad of ['example.com', '/relative', 'ftp://x.com/f', 'javascript:alert(1)', 'http://exa mple.com']) {
        expect(err(f('url'), bad)).to.equal('must be a valid http or https URL');
      }
    });
    it('phone', () => {
      for (const good of ['+1 (555) 123-4567', '555.123.4567', '0301234']) expect(ok(f('phone'), good)).to.equal(good);
      for (const bad of ['abc', '12', '+1 555 CALL', '1+2345']) expect(err(f('phone'), bad)).to.equal('must be a valid phone number');
    });
  });

  describe('normalizeFieldValue: numbers and booleans', () => {
    it('number, currency, percent take finite numbers, not numeric strings', () => {
      expect(ok(f('number'), 3.5)).to.equal(3.5);
      expect(ok(f('currency'), 0)).to.equal(0);
      expect(ok(f('percent'), -12)).to.equal(-12);
      expect(err(f('number'), '12')).to.equal('must be a number');
      expect(err(f('number'), NaN)).to.equal('must be a number');
      expect(err(f('currency'), Infinity)).to.equal('must be a number');
    });
    it('min, max and scale', () => {
      expect(err(f('number', { min: 0 }), -1)).to.equal('must be at least 0');
      expect(err(f('percent', { max: 100 }), 100.5)).to.equal('must be at most 100');
      expect(ok(f('currency', { scale: 2 }), 10.25)).to.equal(10.25);
      expect(err(f('currency', { scale: 2 }), 10.255)).to.equal('must have at most 2 decimal places');
      expect(err(f('number', { scale: 0 }), 1.5)).to.equal('must be a whole number');
      expect(err(f('number', { scale: 3 }), 1.5e-7)).to.equal('must have at most 3 decimal places');
      expect(ok(f('number', { scale: 0 }), 2 ** 53 - 1)).to.equal(2 ** 53 - 1);
      expect(err(f('number', { scale: 0 }), 1e21)).to.match(/^must be between -9007199254740991 and 9007199254740991/);
    });
    it('auto_number and formula are read-only', () => {
      expect(err(f('auto_number'), 5)).to.equal('is read-only (generated automatically)');
      expect(err(f('formula'), 'x')).to.equal('is read-only (computed)');
    });
    it('boolean takes true / false only', () => {
      expect(ok(f('boolean'), false)).to.equal(false);
      expect(ok(f('boolean'), true)).to.equal(true);
      for (const bad of ['true', 1, 0]) expect(err(f('boolean'), bad)).to.equal('must be true or false');
    });
  });

  describe('normalizeFieldValue: dates and times', () => {
    it('date: strict YYYY-MM-DD, real calendar dates', () => {
      expect(ok(f('date'), '2024-02-29')).to.equal('2024-02-29');
      for (const bad of ['2023-02-29', '2024-13-01', '2024-1-5', '2024-01-01T00:00:00Z', '01/02/2024', 20240101]) {
        expect(err(f('date'), bad)).to.equal('must be a valid date (YYYY-MM-DD)');
      }
    });
    it('datetime: normalised to toISOString, no zone = UTC', () => {
      expect(ok(f('datetime'), '2024-03-01T10:20:30Z')).to.equal('2024-03-01T10:20:30.000Z');
      expect(ok(f('datetime'), '2024-03-01T10:20')).to.equal('2024-03-01T10:20:00.000Z');
      expect(ok(f('datetime'), '2024-03-01 10:20:30.1234')).to.equal('2024-03-01T10:20:30.123Z');
      expect(ok(f('datetime'), '2024-03-01T10:20:30+02:00')).to.equal('2024-03-01T08:20:30.000Z');
      expect(ok(f('datetime'), '2024-03-01T01:00:00-0130')).to.equal('2024-03-01T02:30:00.000Z');
      expect(ok(f('datetime'), new Date(Date.UTC(2024, 0, 2, 3, 4, 5)))).to.equal('2024-01-02T03:04:05.000Z');
      for (const bad of ['2024-03-01', '2024-02-30T10:00:00Z', '2024-03-01T25:00:00Z', 'yesterday', new Date('x'), 1709288430000]) {
        expect(err(f('datetime'), bad)).to.equal('must be a valid ISO 8601 date and time');
      }
    });
    it('time: HH:MM[:SS[.sss]] → HH:MM:SS, milliseconds kept when not zero', () => {
      expect(ok(f('time'), '09:30')).to.equal('09:30:00');
      expect(ok(f('time'), '23:59:59')).to.equal('23:59:59');
      expect(ok(f('time'), '10:00:00.000')).to.equal('10:00:00');
      expect(ok(f('time'), '10:00:00.5')).to.equal('10:00:00.500');
      for (const bad of ['24:00', '9:30', '10:60', '10:00:00Z', 930]) {
        expect(err(f('time'), bad)).to.equal('must be a valid time (HH:MM or HH:MM:SS)');
      }
    });
  });

  describe('normalizeFieldValue: select, relations, object, json', () => {
    const status = f('select', {
      options: [
        { label: 'Draft', value: 'draft' },
        { label: 'Open', value: 'open' },
        { label: 'Closed', value: 'closed' },
      ],
    });
    it('select takes one of the options', () => {
      expect(ok(status, 'open')).to.equal('open');
      expect(err(status, 'Open')).to.equal('must be one of: draft, open, closed');
      expect(err(status, 1)).to.equal('must be one of: draft, open, closed');
    });
    it('lookup / master_detail take a non-empty string id', () => {
      expect(ok(f('lookup', { reference_to: 'user' }), 'u1')).to.equal('u1');
      expect(ok(f('master_detail'), 'p-9')).to.equal('p-9');
      expect(err(f('lookup'), 12)).to.equal('must be a record id (a non-empty string)');
      expect(err(f('master_detail'), '  ')).to.equal('must be a record id (a non-empty string)');
    });
    it('object takes a plain JSON object', () => {
      expect(ok(f('object'), { a: 1, b: [true, null] })).to.deep.equal({ a: 1, b: [true, null] });
      expect(err(f('object'), [1])).to.equal('must be an object');
      expect(err(f('object'), 'x')).to.equal('must be an object');
      expect(err(f('object'), new Date())).to.equal('must be an object');
      expect(err(f('object'), { a: NaN })).to.equal('must contain only JSON values');
    });
    it('json takes any JSON-serialisable value', () => {
      for (const v of ['s', 1, false, [1, { a: 'b' }], { deep: { x: null } }]) expect(ok(f('json'), v)).to.deep.equal(v);
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      for (const bad of [() => 1, { u: undefined }, BigInt(1), [Infinity]]) {
        expect(err(f('json'), bad)).to.equal('must be a JSON value');
      }
      // Walked without recursion before anything else: a cycle is as deep as the limit allows.
      expect(err(f('json'), circular)).to.equal('is nested deeper than 31 levels');
    });
  });

  describe('normalizeFieldValue: multiple', () => {
    it('needs an array and checks each element', () => {
      const tags = f('select', {
        multiple: true,
        options: [
          { label: 'A', value: 'a' },
          { label: 'B', value: 'b' },
        ],
      });
      expect(ok(tags, ['a', 'b'])).to.deep.equal(['a', 'b']);
      expect(ok(tags, [])).to.deep.equal([]);
      expect(err(tags, 'a')).to.equal('must be an array (the field allows multiple values)');
      expect(err(tags, ['a', 'c'])).to.equal('item 2: must be one of: a, b');
      expect(err(tags, ['a', null])).to.equal('item 2: must not be null');
      expect(ok(f('lookup', { multiple: true }), ['u1', 'u2'])).to.deep.equal(['u1', 'u2']);
      expect(err(f('text', { multiple: true, max_length: 2 }), ['ab', 'abc'])).to.equal('item 2: must be at most 2 characters');
      expect(ok(f('time', { multiple: true }), ['09:00', '10:15:30'])).to.deep.equal(['09:00:00', '10:15:30']);
    });
    it('json with multiple keeps taking any JSON value', () => {
      expect(ok(f('json', { multiple: true }), { a: 1 })).to.deep.equal({ a: 1 });
    });
  });

  describe('checkRecordValues', () => {
    const task = objectDef({
      title: { type: 'text', required: true, max_length: 10 },
      status: {
        type: 'select',
        options: [
          { label: 'Open', value: 'open' },
          { label: 'Done', value: 'done' },
        ],
      },
      due: { type: 'date' },
      estimate: { type: 'number', min: 0 },
      code: { type: 'auto_number' },
      total: { type: 'formula' },
      locked: { type: 'text', readonly: true },
      owners: { type: 'lookup', multiple: true, required: true },
      notes: { type: 'textarea' },
    });
    it('normalises the given keys and reports every error', () => {
      const r = checkRecordValues(
        task,
        { title: 'Write', due: '2024-02-30', estimate: -2, status: 'done', owners: ['u1'], foo: 1 },
        'create',
      );
      expect(r.data).to.deep.equal({ title: 'Write', status: 'done', owners: ['u1'] });
      expect(r.errors).to.deep.equal({ due: 'must be a valid date (YYYY-MM-DD)', estimate: 'must be at least 0', foo: 'unknown field' });
    });
    it('required on create: missing, null, empty string and empty array', () => {
      expect(checkRecordValues(task, {}, 'create').errors).to.deep.equal({ title: 'is required', owners: 'is required' });
      expect(checkRecordValues(task, { title: '', owners: [] }, 'create').errors).to.deep.equal({
        title: 'is required',
        owners: 'is required',
      });
      expect(checkRecordValues(task, { title: null, owners: ['u'] }, 'create').errors).to.deep.equal({ title: 'is required' });
    });
    it('required on update: only keys given are checked', () => {
      expect(checkRecordValues(task, { status: 'open' }, 'update')).to.deep.equal({ data: { status: 'open' }, errors: {} });
      expect(checkRecordValues(task, { title: null }, 'update').errors).to.deep.equal({ title: 'is required' });
    });
    it("null and '' clear optional fields ('' becomes null); undefined keys are dropped", () => {
      const r = checkRecordValues(task, { notes: '', due: '', estimate: null, status: undefined }, 'update');
      expect(r).to.deep.equal({ data: { notes: null, due: null, estimate: null }, errors: {} });
    });
    it('system, readonly, auto_number and formula fields are read-only', () => {
      const r = checkRecordValues(task, { id: 'x', created_at: null, locked: 'a', code: 3, total: 1 }, 'update');
      expect(r.errors).to.deep.equal({
        id: 'is read-only',
        created_at: 'is read-only',
        locked: 'is read-only',
        code: 'is read-only (generated automatically)',
        total: 'is read-only (computed)',
      });
      expect(r.data).to.deep.equal({});
    });
    it('unknown fields, including inherited property names', () => {
      expect(checkRecordValues(task, { toString: 'x', constructor: 1 }, 'update').errors).to.deep.equal({
        toString: 'unknown field',
        constructor: 'unknown field',
      });
    });
  });

  describe('applyDefaults', () => {
    const def = objectDef({
      status: { type: 'select', defaultValue: 'open' },
      opened_at: { type: 'datetime', defaultValue: '$now' },
      day: { type: 'date', defaultValue: '$today' },
      owner: { type: 'lookup', defaultValue: '$current_user' },
      watchers: { type: 'lookup', multiple: true, defaultValue: ['$current_user', 'u9'] },
      meta: { type: 'object', defaultValue: { a: [1] } },
      flag: { type: 'boolean', defaultValue: false },
      plain: { type: 'text' },
    });
    const specials = { now: '2024-05-06T07:08:09.000Z', today: '2024-05-06', userId: 'u1' };
    it('fills absent fields, resolving special values', () => {
      const out = applyDefaults(def, { plain: 'p' }, specials);
      expect(out).to.deep.equal({
        plain: 'p',
        status: 'open',
        opened_at: '2024-05-06T07:08:09.000Z',
        day: '2024-05-06',
        owner: 'u1',
        watchers: ['u1', 'u9'],
        meta: { a: [1] },
        flag: false,
      });
      expect(out.meta).to.not.equal(def.fields.meta.defaultValue);
    });
    it('keeps given values (null too) and does not touch the input', () => {
      const data = { status: 'closed', owner: null };
      const out = applyDefaults(def, data, specials);
      expect(out.status).to.equal('closed');
      expect(out.owner).to.equal(null);
      expect(data).to.deep.equal({ status: 'closed', owner: null });
    });
    it('leaves $current_user fields absent without a user', () => {
      const out = applyDefaults(def, {}, { now: specials.now, today: specials.today });
      expect(out).to.not.have.property('owner');
      expect(out.watchers).to.deep.equal(['u9']);
    });
  });
});
