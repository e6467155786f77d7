import { expect } from 'chai';
import { matchesTrigger } from '../../../../plugins/events/workflows/match';
import type { RecordTrigger, StoredEvent } from '../../../../plugins/events/types';

function event(over: Partial<StoredEvent> = {}): StoredEvent {
  return {
    position: 1,
    datasource: 'default',
    object: 'project',
    recordId: 'p1',
    operation: 'updated',
    fields: ['status'],
    record: { id: 'p1', name: 'Apollo', status: 'done', budget: 500, tags: ['x', 'y'], owner: 'alice', due: '2000-01-01' },
    previous: { id: 'p1', name: 'Apollo', status: 'active', budget: 500, tags: ['x', 'y'], owner: 'alice', due: '2000-01-01' },
    userId: 'alice',
    at: '2024-01-01T00:00:00.000Z',
    ...over,
  };
}

const trigger = (over: Partial<RecordTrigger> = {}): RecordTrigger => ({
  kind: 'record',
  object: 'project',
  events: ['created', 'updated', 'deleted'],
  ...over,
});

describe('events: matchesTrigger', () => {
  it('object and operation', () => {
    expect(matchesTrigger(trigger(), event())).to.equal(true);
    expect(matchesTrigger(trigger({ object: 'task' }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ events: ['created'] }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ events: ['created', 'deleted'] }), event({ operation: 'deleted', fields: [] }))).to.equal(true);
  });

  it('condition, array form and map form, on the record after the change', () => {
    expect(matchesTrigger(trigger({ condition: [['status', '=', 'done']] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ condition: [['status', '=', 'active']] }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ condition: [['budget', '>', 100], 'and', ['name', 'startswith', 'ap']] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ condition: [['budget', '>', 1000], 'or', ['tags', 'in', ['y']]] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ condition: ['not', ['status', '=', 'done']] }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ condition: { status: 'done', budget: ['>=', 500] } }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ condition: { status: 'done', budget: ['>', 500] } }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ condition: [['name', 'like', '%POLL%']] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ condition: [['owner', '=', null]] }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ condition: [['budget', '=', { $field: 'budget' }]] }), event())).to.equal(true);
  });

  it('condition: the id is part of the record, and a delete is matched on the record before it', () => {
    expect(matchesTrigger(trigger({ condition: [['id', '=', 'p1']] }), event({ record: { name: 'Apollo' } }))).to.equal(true);
    const deleted = event({ operation: 'deleted', fields: [], record: { id: 'p1', status: 'active' }, previous: undefined });
    expect(matchesTrigger(trigger({ condition: [['status', '=', 'active']] }), deleted)).to.equal(true);
  });

  it('condition: special values $now, $today, $current_user', () => {
    expect(matchesTrigger(trigger({ condition: [['due', '<', '$today']] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ condition: [['due', '>', '$now']] }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ condition: [['owner', '=', '$current_user']] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ condition: [['owner', '=', '$current_user']] }), event({ userId: 'bob' }))).to.equal(false);
    expect(matchesTrigger(trigger({ condition: [['owner', '=', '$current_user']] }), event({ userId: undefined }))).to.equal(false);
  });

  it('changed: any of the fields among the event fields', () => {
    expect(matchesTrigger(trigger({ changed: ['status'] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ changed: ['budget', 'status'] }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ changed: ['budget'] }), event())).to.equal(false);
    expect(
      matchesTrigger(trigger({ changed: ['status'] }), event({ operation: 'created', fields: ['name', 'status'], previous: undefined })),
    ).to.equal(true);
    expect(matchesTrigger(trigger({ changed: ['status'] }), event({ operation: 'deleted', fields: [] }))).to.equal(false);
  });

  it('from: previous values, updates only', () => {
    expect(matchesTrigger(trigger({ from: { status: 'active' } }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ from: { status: 'planning' } }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ from: { status: 'active', budget: 500 } }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ from: { status: 'active' } }), event({ operation: 'created', previous: undefined }))).to.equal(false);
    expect(matchesTrigger(trigger({ from: { status: 'active' } }), event({ operation: 'created' }))).to.equal(false);
    expect(matchesTrigger(trigger({ from: { status: 'active' } }), event({ operation: 'deleted' }))).to.equal(false);
    expect(matchesTrigger(trigger({ from: { owner: null } }), event({ previous: { id: 'p1' } }))).to.equal(true);
  });

  it('to: record values', () => {
    expect(matchesTrigger(trigger({ to: { status: 'done' } }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ to: { status: 'active' } }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ to: { budget: 500, tags: ['x', 'y'] } }), event())).to.equal(true);
    expect(matchesTrigger(trigger({ to: { tags: ['y', 'x'] } }), event())).to.equal(false);
    expect(matchesTrigger(trigger({ to: { status: 'done' } }), event({ operation: 'created', previous: undefined }))).to.equal(true);
  });

  it('everything together: a transition active → done of status', () => {
    const t = trigger({
      events: ['updated'],
      changed: ['status'],
      from: { status: 'active' },
      to: { status: 'done' },
      condition: [['budget', '>', 0]],
    });
    expect(matchesTrigger(t, event())).to.equal(true);
    expect(matchesTrigger(t, event({ fields: ['name'] }))).to.equal(false);
    expect(matchesTrigger(t, event({ record: { ...event().record, budget: 0 } }))).to.equal(false);
  });
});
