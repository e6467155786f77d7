import { expect } from 'chai';
import type { FieldDefinition, FieldType, ObjectDefinition, ValidationRule } from '../../../kernel/metadata/types';
import type { Filter } from '../../../kernel/query/ast';
import { checkRules, type CheckRulesOptions } from '../../../kernel/engine/validation-rules';
import { ObjectQLError } from '../../../kernel/errors';

const FIELDS: Record<string, FieldType> = {
  id: 'text',
  title: 'text',
  code: 'text',
  region: 'select',
  status: 'select',
  priority: 'number',
  start_date: 'date',
  end_date: 'date',
  budget: 'currency',
  actual_cost: 'currency',
  reason: 'textarea',
  approver: 'lookup',
  owner: 'lookup',
  tags: 'select',
};

function objectWith(...rules: ValidationRule[]): ObjectDefinition {
  const fields: Record<string, FieldDefinition> = {};
  for (const [name, type] of Object.entries(FIELDS)) fields[name] = { name, type, label: name };
  return { name: 'project', label: 'Project', datasource: 'default', fields, indexes: [], actions: {}, rules, hooks: [] };
}

const noCount = (): Promise<number> => Promise.reject(new Error('countMatching should not be called'));
const create = (extra: Partial<CheckRulesOptions> = {}): CheckRulesOptions => ({
  mode: 'create',
  changed: [],
  countMatching: noCount,
  ...extra,
});

describe('kernel/engine/validation-rules', () => {
  describe('range', () => {
    const obj = objectWith(
      { name: 'prio', type: 'range', message: 'Priority must be 1-5', field: 'priority', min: 1, max: 5 },
      { name: 'dates', type: 'range', message: 'Start must be in 2024', field: 'start_date', min: '2024-01-01', max: '2024-12-31' },
      { name: 'budget', type: 'range', message: 'Budget too low', field: 'budget', min: '100' },
    );
    it('passes inside the bounds and on null', async () => {
      expect(await checkRules(obj, { priority: 1, start_date: '2024-12-31', budget: 100 }, create())).to.deep.equal({});
      expect(await checkRules(obj, { priority: null }, create())).to.deep.equal({});
    });
    it('fails outside the bounds (numbers, dates, numeric string bounds)', async () => {
      expect(await checkRules(obj, { priority: 6, start_date: '2023-12-31', budget: 99.5 }, create())).to.deep.equal({
        priority: 'Priority must be 1-5',
        start_date: 'Start must be in 2024',
        budget: 'Budget too low',
      });
      expect(await checkRules(obj, { priority: 0 }, create())).to.deep.equal({ priority: 'Priority must be 1-5' });
    });
    it('resolves $today in bounds when specials are given', async () => {
      const past = objectWith({ name: 'p', type: 'range', message: 'Not in the future', field: 'end_date', max: '$today' });
      const specials = { now: new Date('2024-06-01T12:00:00Z') };
      expect(await checkRules(past, { end_date: '2024-06-01' }, create({ specials }))).to.deep.equal({});
      expect(await checkRules(past, { end_date: '2024-06-02' }, create({ specials }))).to.deep.equal({ end_date: 'Not in the future' });
    });
  });

  describe('pattern', () => {
    const obj = objectWith({
      name: 'code',
      type: 'pattern',
      message: 'Code must look like AB-123',
      field: 'code',
      pattern: '^[a-z]{2}-\\d{3}$',
      flags: 'ig',
    });
    it('passes a matching value (flags honoured, g dropped so repeats work) and null', async () => {
      for (let i = 0; i < 3; i++) expect(await checkRules(obj, { code: 'AB-123' }, create())).to.deep.equal({});
      expect(await checkRules(obj, { code: null }, create())).to.deep.equal({});
    });
    it('fails a value that does not match', async () => {
      expect(await checkRules(obj, { code: 'AB123' }, create())).to.deep.equal({ code: 'Code must look like AB-123' });
    });
    it('reports an invalid pattern as a rule configuration error', async () => {
      const bad = objectWith({ name: 'broken', type: 'pattern', message: 'x', field: 'code', pattern: '([' });
      try {
        await checkRules(bad, { code: 'a' }, create());
        expect.fail('should throw');
      } catch (e) {
        expect(e).to.be.instanceOf(ObjectQLError);
        expect((e as ObjectQLError).message).to.equal(`Validation rule 'broken' has an invalid pattern "(["`);
      }
    });
  });

  describe('cross_field', () => {
    const obj = objectWith(
      {
        name: 'dates',
        type: 'cross_field',
        message: 'End must be after start',
        field: 'end_date',
        operator: '>=',
        compare_to: 'start_date',
      },
      { name: 'cost', type: 'cross_field', message: 'Over budget', field: 'actual_cost', operator: '<=', value: { $field: 'budget' } },
      { name: 'not_draft', type: 'cross_field', message: 'Status cannot be draft', field: 'status', operator: '!=', value: 'draft' },
    );
    it('passes when every comparison holds, and skips null sides', async () => {
      const rec = { start_date: '2024-01-01', end_date: '2024-01-01', budget: 100, actual_cost: 80, status: 'open' };
      expect(await checkRules(obj, rec, create())).to.deep.equal({});
      expect(await checkRules(obj, { start_date: null, end_date: '2020-01-01', actual_cost: 500 }, create())).to.deep.equal({});
    });
    it('fails when a comparison does not hold', async () => {
      const rec = { start_date: '2024-02-01', end_date: '2024-01-01', budget: 100, actual_cost: 120, status: 'draft' };
      expect(await checkRules(obj, rec, create())).to.deep.equal({
        end_date: 'End must be after start',
        actual_cost: 'Over budget',
        status: 'Status cannot be draft',
      });
    });
    it('supports = < > and rejects an unknown operator', async () => {
      const eq = objectWith({ name: 'e', type: 'cross_field', message: 'must equal', field: 'priority', operator: '=', value: 3 });
      expect(await checkRules(eq, { priority: 3 }, create())).to.deep.equal({});
      expect(await checkRules(eq, { priority: 4 }, create())).to.deep.equal({ priority: 'must equal' });
      const lt = objectWith({ name: 'l', type: 'cross_field', message: 'too big', field: 'priority', operator: '<', value: 3 });
      expect(await checkRules(lt, { priority: 3 }, create())).to.deep.equal({ priority: 'too big' });
      const bad = objectWith({ name: 'b', type: 'cross_field', message: 'x', field: 'priority', operator: 'like', value: 3 });
      let caught: unknown;
      await checkRules(bad, { priority: 3 }, create()).catch((e) => (caught = e));
      expect((caught as Error).message).to.equal(`Validation rule 'b' has an unknown operator "like"`);
    });
  });

  describe('unique', () => {
    const obj = objectWith({ name: 'u', type: 'unique', message: 'Code already used in this region', fields: ['region', 'code'] });
    it('asks countMatching with the values of all fields on create', async () => {
      const seen: Filter[] = [];
      const countMatching = (f: Filter): Promise<number> => {
        seen.push(f);
        return Promise.resolve(0);
      };
      expect(await checkRules(obj, { region: 'eu', code: 'A1' }, create({ countMatching }))).to.deep.equal({});
      expect(seen).to.deep.equal([
        {
          and: [
            { field: 'region', op: 'eq', value: 'eu' },
            { field: 'code', op: 'eq', value: 'A1' },
          ],
        },
      ]);
    });
    it('fails when a matching record exists, naming the first field', async () => {
      expect(await checkRules(obj, { region: 'eu', code: 'A1' }, create({ countMatching: () => Promise.resolve(1) }))).to.deep.equal({
        region: 'Code already used in this region',
      });
    });
    it('on update excludes the record itself and matches null parts with isnull', async () => {
      const seen: Filter[] = [];
      const opts = create({
        mode: 'update',
        changed: ['code'],
        countMatching: (f) => {
          seen.push(f);
          return Promise.resolve(0);
        },
      });
      await checkRules(obj, { id: 'p1', region: null, code: 'A1' }, opts);
      expect(seen).to.deep.equal([
        {
          and: [
            { field: 'region', op: 'isnull', value: true },
            { field: 'code', op: 'eq', value: 'A1' },
            { field: 'id', op: 'ne', value: 'p1' },
          ],
        },
      ]);
    });
    it('is skipped on update when none of its fields changed, and when all values are null', async () => {
      expect(await checkRules(obj, { id: 'p1', region: 'eu', code: 'A1' }, create({ mode: 'update', changed: ['title'] }))).to.deep.equal(
        {},
      );
      expect(await checkRules(obj, { region: null }, create())).to.deep.equal({});
    });
  });

  describe('state_machine', () => {
    const obj = objectWith({
      name: 'flow',
      type: 'state_machine',
      message: 'Invalid status transition',
      field: 'status',
      transitions: { draft: ['open'], open: ['closed', 'draft'], closed: [] },
    });
    const update = (from: unknown, to: unknown, changed = ['status']): Promise<Record<string, string>> =>
      checkRules(obj, { id: 'p1', status: to }, create({ mode: 'update', previous: { id: 'p1', status: from }, changed }));
    it('allows listed transitions', async () => {
      expect(await update('draft', 'open')).to.deep.equal({});
      expect(await update('open', 'draft')).to.deep.equal({});
    });
    it('refuses unlisted transitions, from a terminal state and from an unknown state', async () => {
      expect(await update('draft', 'closed')).to.deep.equal({ status: 'Invalid status transition' });
      expect(await update('closed', 'open')).to.deep.equal({ status: 'Invalid status transition' });
      expect(await update('archived', 'open')).to.deep.equal({ status: 'Invalid status transition' });
    });
    it('ignores creates, unchanged fields, same values and null states', async () => {
      expect(await checkRules(obj, { status: 'closed' }, create({ changed: ['status'] }))).to.deep.equal({});
      expect(await update('draft', 'closed', ['title'])).to.deep.equal({});
      expect(await update('closed', 'closed')).to.deep.equal({});
      expect(await update(null, 'closed')).to.deep.equal({});
    });
    it('does not let a "toString" state through', async () => {
      expect(await update('toString', 'open')).to.deep.equal({ status: 'Invalid status transition' });
    });
  });

  describe('conditional', () => {
    const obj = objectWith(
      {
        name: 'reject',
        type: 'conditional',
        message: 'Required when rejected',
        when: [['status', '=', 'rejected']],
        required: ['reason', 'approver'],
      },
      { name: 'big', type: 'conditional', message: 'Needs an approver', when: { budget: ['>', 'actual_cost'] }, required: ['approver'] },
    );
    it('passes when the condition is false or the fields are filled', async () => {
      expect(await checkRules(obj, { status: 'open' }, create())).to.deep.equal({});
      expect(await checkRules(obj, { status: 'rejected', reason: 'no', approver: 'u1' }, create())).to.deep.equal({});
    });
    it('names every missing field when the condition holds', async () => {
      expect(await checkRules(obj, { status: 'rejected', reason: '' }, create())).to.deep.equal({
        reason: 'Required when rejected',
        approver: 'Required when rejected',
      });
    });
    it('reads a bare field name as a field reference for non-text fields (map form)', async () => {
      expect(await checkRules(obj, { budget: 500, actual_cost: 100 }, create())).to.deep.equal({ approver: 'Needs an approver' });
      expect(await checkRules(obj, { budget: 50, actual_cost: 100 }, create())).to.deep.equal({});
    });
    it('resolves $current_user in the condition', async () => {
      const mine = objectWith({
        name: 'm',
        type: 'conditional',
        message: 'Give a code',
        when: [['owner', '=', '$current_user'], 'and', ['tags', '=', null]],
        required: ['code'],
      });
      const specials = { now: new Date(), user: { id: 'u7', roles: [] } };
      expect(await checkRules(mine, { owner: 'u7' }, create({ specials }))).to.deep.equal({ code: 'Give a code' });
      expect(await checkRules(mine, { owner: 'u8' }, create({ specials }))).to.deep.equal({});
    });
  });

  it('keeps the first message per field across rules', async () => {
    const obj = objectWith(
      { name: 'a', type: 'range', message: 'first', field: 'priority', max: 1 },
      { name: 'b', type: 'range', message: 'second', field: 'priority', max: 2 },
    );
    expect(await checkRules(obj, { priority: 9 }, create())).to.deep.equal({ priority: 'first' });
  });
});
