import { expect } from 'chai';
import { lookup, renderTemplate, templateProblems } from '../../../../plugins/events/actions/template';

describe('events: templates', () => {
  const scope = {
    event: { record: { name: 'Apollo', budget: 1200.5, tags: ['a', 'b'], owner: null, nested: { x: 1 } }, fields: ['status'] },
    delivery: { id: 'default:7:w:0' },
  };

  it('keeps the JSON type of a placeholder that is the whole string', () => {
    expect(renderTemplate('{{event.record.budget}}', scope)).to.equal(1200.5);
    expect(renderTemplate('{{ event.record.tags }}', scope)).to.deep.equal(['a', 'b']);
    expect(renderTemplate('{{event.record.nested}}', scope)).to.deep.equal({ x: 1 });
    expect(renderTemplate('{{event.record.owner}}', scope)).to.equal(null);
    expect(renderTemplate('{{event.record.missing}}', scope)).to.equal(null);
  });

  it('writes values as text inside a longer string', () => {
    expect(renderTemplate('Project {{event.record.name}} costs {{event.record.budget}}', scope)).to.equal('Project Apollo costs 1200.5');
    expect(renderTemplate('tags={{event.record.tags}} owner={{event.record.owner}}!', scope)).to.equal('tags=["a","b"] owner=!');
    expect(renderTemplate('first {{event.fields[0]}} / {{event.record.tags.1}}', scope)).to.equal('first status / b');
  });

  it('renders maps and lists deeply and leaves other values alone', () => {
    const template = { a: ['{{delivery.id}}', 3, true, null], b: { c: '{{event.record.name}}' } };
    expect(renderTemplate(template, scope)).to.deep.equal({ a: ['default:7:w:0', 3, true, null], b: { c: 'Apollo' } });
    expect(template.b.c).to.equal('{{event.record.name}}');
    expect(renderTemplate(42, scope)).to.equal(42);
    expect(renderTemplate('no placeholder {here}', scope)).to.equal('no placeholder {here}');
  });

  it('reads own keys only: no prototype, no code', () => {
    expect(lookup(scope, 'event.record.constructor')).to.equal(undefined);
    expect(lookup(scope, 'event.__proto__')).to.equal(undefined);
    expect(renderTemplate('{{event.record.name.length}}', scope)).to.equal(null);
    expect(renderTemplate('{{process.env.HOME}}', scope)).to.equal(null);
    expect(renderTemplate('{{ 1 + 1 }}', scope)).to.equal('{{ 1 + 1 }}');
  });

  it('a copy, not the scope itself', () => {
    const out = renderTemplate('{{event.record.nested}}', scope) as { x: number };
    out.x = 2;
    expect(scope.event.record.nested.x).to.equal(1);
  });

  it('names placeholders outside the scope', () => {
    expect(templateProblems({ a: ['{{event.record.name}}', '{{user.id}}'] })).to.deep.equal([
      { at: ['a', 1], reason: 'placeholder {{user.id}} must start with one of event, delivery, workflow, scheduledAt, now' },
    ]);
    expect(templateProblems('{{now}} {{scheduledAt}} {{workflow.name}}')).to.deep.equal([]);
  });
});
