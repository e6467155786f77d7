import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { MetadataError, type ObjectDefinition } from '../../../../kernel';
import { DEFAULT_WORKFLOW_SETTINGS, parseWorkflow, type WorkflowSettings } from '../../../../plugins/events/workflows/parse';
import { WorkflowProblems } from '../../../../plugins/events/workflows/problems';
import type { Workflow } from '../../../../plugins/events/types';

const project = {
  name: 'project',
  fields: Object.fromEntries(['id', 'name', 'status', 'budget', 'owner', 'created_at'].map((f) => [f, { name: f, type: 'text' }])),
} as unknown as ObjectDefinition;
const task = {
  name: 'task',
  fields: { id: { name: 'id' }, title: { name: 'title' }, project: { name: 'project' } },
} as unknown as ObjectDefinition;
const objects: Record<string, ObjectDefinition> = { project, task };

const withBrokers: WorkflowSettings = { ...DEFAULT_WORKFLOW_SETTINGS, brokers: { nats: { servers: 'x' }, amqp: { url: 'y' } } };

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oql-workflows-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes the YAML, reads it as the loader does: the workflow, or the MetadataError. */
function load(
  yamlText: string,
  options: { settings?: WorkflowSettings; env?: Record<string, string> } = {},
): { workflow?: Workflow; error?: MetadataError; file: string } {
  const file = path.join(dir, 'wf.workflow.yml');
  fs.writeFileSync(file, yamlText);
  const problems = new WorkflowProblems();
  const ctx = { object: (n: string) => objects[n], settings: options.settings ?? DEFAULT_WORKFLOW_SETTINGS, env: options.env ?? {} };
  const content: unknown = { ...(parse(yamlText) as object), name: 'wf' };
  const workflow = parseWorkflow('wf', content, file, ctx, problems.for(file));
  try {
    problems.throwIfAny();
  } catch (err) {
    expect(err).to.be.instanceOf(MetadataError);
    return { error: err as MetadataError, file };
  }
  return { workflow, file };
}

function problemsOf(yamlText: string, options?: Parameters<typeof load>[1]): { path: string; reason: string; line?: number }[] {
  const { error } = load(yamlText, options);
  expect(error, 'expected a MetadataError').to.not.equal(undefined);
  return error!.problems.map(({ path: p, reason, line }) => ({ path: p, reason, line }));
}

describe('events: workflow files', () => {
  it('reads a record workflow with its defaults', () => {
    const { workflow, file } = load(`
trigger:
  object: project
  condition: [[status, =, done]]
actions:
  - type: webhook
    url: https://hooks.example.com/x
`);
    expect(workflow).to.deep.equal({
      name: 'wf',
      source: file,
      label: 'Wf',
      trigger: { kind: 'record', object: 'project', events: ['created', 'updated', 'deleted'], condition: [['status', '=', 'done']] },
      actions: [{ type: 'webhook', url: 'https://hooks.example.com/x', method: 'POST', headers: {}, timeoutMs: 10_000 }],
      retry: DEFAULT_WORKFLOW_SETTINGS.retry,
      enabled: true,
    });
  });

  it('reads every action type, on:, run_as, retry, changed/from/to and ${ENV} values', () => {
    const { workflow, error } = load(
      `
label: Everything
enabled: false
trigger:
  object: project
  on: [update, created]
  condition: { status: done }
  changed: [status]
  from: { status: active }
  to: { status: done }
run_as: { id: bot, roles: [admin], team: ops }
retry: { max_attempts: 3, initial_delay_ms: 10 }
actions:
  - type: webhook
    url: \${HOOK_URL}/done
    method: put
    headers: { Authorization: 'Bearer \${HOOK_TOKEN}' }
    secret: \${HOOK_SECRET}
    body: { name: '{{event.record.name}}' }
    timeout_ms: 2500
  - type: update
    data: { budget: 0 }
  - type: create
    object: task
    data: { title: 'Close {{event.record.name}}', project: '{{event.recordId}}' }
  - type: publish
    broker: nats
    subject: projects.done
  - type: publish
    broker: amqp
    exchange: ''
    subject: projects-done
    body: '{{event.record}}'
`,
      { settings: withBrokers, env: { HOOK_URL: 'https://hooks.example.com', HOOK_TOKEN: 't0k', HOOK_SECRET: 'sek' } },
    );
    expect(error?.message).to.equal(undefined);
    expect(workflow).to.deep.include({
      label: 'Everything',
      enabled: false,
      runAs: { id: 'bot', roles: ['admin'], team: 'ops' },
      retry: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 600_000 },
    });
    expect(workflow!.trigger).to.deep.equal({
      kind: 'record',
      object: 'project',
      events: ['updated', 'created'],
      condition: { status: 'done' },
      changed: ['status'],
      from: { status: 'active' },
      to: { status: 'done' },
    });
    expect(workflow!.actions).to.deep.equal([
      {
        type: 'webhook',
        url: 'https://hooks.example.com/done',
        method: 'PUT',
        headers: { Authorization: 'Bearer t0k' },
        secret: 'sek',
        body: { name: '{{event.record.name}}' },
        timeoutMs: 2500,
      },
      { type: 'update', data: { budget: 0 } },
      { type: 'create', object: 'task', data: { title: 'Close {{event.record.name}}', project: '{{event.recordId}}' } },
      { type: 'publish', broker: 'nats', subject: 'projects.done' },
      { type: 'publish', broker: 'amqp', exchange: '', subject: 'projects-done', body: '{{event.record}}' },
    ]);
  });

  it('reads a schedule', () => {
    const { workflow } = load(`
trigger: { schedule: '*/15 8-18 * * 1-5', timezone: Europe/Paris }
actions:
  - { type: create, object: task, data: { title: 'Check at {{scheduledAt}}' } }
`);
    expect(workflow!.trigger).to.deep.equal({ kind: 'schedule', cron: '*/15 8-18 * * 1-5', timezone: 'Europe/Paris' });
  });

  it('names the file, the key path and the line of each problem', () => {
    const { error, file } = load(`label: Broken
trigger:
  object: project
actions:
  - type: webhook
    url: not a url
`);
    expect(error!.message).to.equal(`${file}: actions[0].url: is not a valid URL (expected http:// or https://...) (line 6)`);
    expect(error!.file).to.equal(file);
    expect(error!.path).to.equal('actions[0].url');
    expect(error!.line).to.equal(6);
  });

  it('unknown object, unknown fields in condition, changed, from, to and data', () => {
    expect(problemsOf(`trigger: { object: projet }\nactions: [{ type: create, object: task, data: { title: x } }]\n`)).to.deep.equal([
      { path: 'trigger.object', reason: "unknown object 'projet'", line: 1 },
    ]);
    const found = problemsOf(`trigger:
  object: project
  condition: [[stat, =, done], or, [budget, '>', { $field: cost }]]
  changed: [status, colour]
  from: { state: active }
  to: { status: done, size: 3 }
actions:
  - type: update
    data: { budgte: 1 }
  - type: create
    object: tasks
    data: {}
`);
    expect(found.map((p) => [p.path, p.reason.replace(/ \(fields: .*\)$/, ''), p.line])).to.deep.equal([
      ['trigger.condition', "unknown field 'stat' of object 'project'", 3],
      ['trigger.condition', "unknown field 'cost' of object 'project'", 3],
      ['trigger.changed[1]', "unknown field 'colour' of object 'project'", 4],
      ['trigger.from.state', "unknown field 'state' of object 'project'", 5],
      ['trigger.to.size', "unknown field 'size' of object 'project'", 6],
      ['actions[0].data.budgte', "unknown field 'budgte' of object 'project'", 9],
      ['actions[1].object', "unknown object 'tasks'", 11],
    ]);
  });

  it('a condition that is no filter', () => {
    const [p] = problemsOf(
      `trigger:\n  object: project\n  condition: [[status, 'is', done]]\nactions: [{ type: update, data: { budget: 1 } }]\n`,
    );
    expect(p.path).to.equal('trigger.condition');
    expect(p.reason).to.match(/^not a valid filter: Unknown filter operator "is"/);
    expect(p.line).to.equal(3);
  });

  it('shape: unknown keys, wrong types, missing actions, bad type, both events and on', () => {
    expect(
      problemsOf(`trigger: { object: project, events: [updated], on: [created], when: x }
actions:
  - { type: email, to: x }
  - { type: webhook, url: 'https://a.example', retries: 3, timeout_ms: -1 }
  - { type: update }
run_as: { roles: [x] }
retry: { max_attempts: 0 }
`),
    ).to.deep.equal([
      { path: 'trigger.when', reason: 'unknown key', line: 1 },
      { path: 'actions[0].type', reason: 'must be one of webhook, update, create, publish (got the string "email")', line: 3 },
      { path: 'actions[1].timeout_ms', reason: 'must be above 0', line: 4 },
      { path: 'actions[1].retries', reason: 'unknown key', line: 4 },
      { path: 'actions[2].data', reason: 'must be a map of field: value', line: 5 },
      { path: 'run_as.id', reason: 'must be a user id', line: 6 },
      { path: 'retry.max_attempts', reason: 'must be above 0', line: 7 },
    ]);
    expect(problemsOf(`trigger: { object: project, events: [updated], on: [created] }\nactions: []\n`)).to.deep.equal([
      { path: 'actions', reason: 'must list at least one action', line: 2 },
    ]);
    expect(
      problemsOf(`trigger: { object: project, events: [updated], on: [created] }\nactions: [{ type: update, data: {} }]\n`),
    ).to.deep.equal([{ path: 'trigger.on', reason: "give either 'events' or 'on', not both", line: 1 }]);
    expect(problemsOf(`trigger: { object: project, events: [changed] }\nactions: [{ type: update, data: {} }]\n`)[0]).to.deep.include({
      path: 'trigger.events',
      reason: 'must be created, updated, deleted or a list of them',
    });
  });

  it('malformed cron and time zone', () => {
    const actions = `actions: [{ type: create, object: task, data: {} }]\n`;
    expect(problemsOf(`trigger: { schedule: '61 * * * *' }\n${actions}`)).to.deep.equal([
      { path: 'trigger.schedule', reason: 'is not a valid cron expression: Constraint error, got value 61 expected range 0-59', line: 1 },
    ]);
    expect(problemsOf(`trigger:\n  schedule: '* * *'\n${actions}`)[0]).to.deep.include({ path: 'trigger.schedule', line: 2 });
    expect(problemsOf(`trigger:\n  schedule: '* * * * * *'\n${actions}`)[0].reason).to.match(/five fields/);
    expect(problemsOf(`trigger:\n  schedule: '0 8 * * *'\n  timezone: Mars/Olympus\n${actions}`)).to.deep.equal([
      { path: 'trigger.timezone', reason: "unknown time zone 'Mars/Olympus' (use an IANA name such as Europe/Paris)", line: 3 },
    ]);
    expect(
      problemsOf(`trigger: { schedule: '0 8 * * *' }\nactions: [{ type: update, data: { title: x } }]\n`).map((p) => p.path),
    ).to.deep.equal(['actions[0].object', 'actions[0].id']);
  });

  it('bad URLs, header names and missing environment variables', () => {
    const found = problemsOf(`trigger: { object: project }
actions:
  - type: webhook
    url: ftp://files.example.com/x
  - type: webhook
    url: https://user:pw@hooks.example.com/x
  - type: webhook
    url: \${MISSING_URL}
    headers: { 'Bad Header': x, X-Token: '\${MISSING_TOKEN}' }
    secret: \${MISSING_SECRET}
`);
    expect(found).to.deep.equal([
      { path: 'actions[0].url', reason: 'must be an http or https URL (got ftp)', line: 4 },
      { path: 'actions[1].url', reason: 'must not hold credentials: send them in headers, from the environment (${ENV_NAME})', line: 6 },
      { path: 'actions[2].url', reason: 'environment variable MISSING_URL is not set', line: 8 },
      { path: 'actions[2].headers.Bad Header', reason: 'is not a valid header name', line: 9 },
      { path: 'actions[2].headers.X-Token', reason: 'environment variable MISSING_TOKEN is not set', line: 9 },
      { path: 'actions[2].secret', reason: 'environment variable MISSING_SECRET is not set', line: 10 },
    ]);
  });

  it('brokers not configured, bad subjects, template placeholders outside the scope', () => {
    expect(
      problemsOf(`trigger: { object: project }
actions:
  - { type: publish, broker: nats, subject: projects.done }
  - { type: publish, broker: amqp, subject: q }
  - { type: publish, broker: kafka, subject: q }
`),
    ).to.deep.equal([
      { path: 'actions[0].broker', reason: "broker 'nats' is not configured: set the events plugin's option brokers.nats", line: 3 },
      { path: 'actions[1].broker', reason: "broker 'amqp' is not configured: set the events plugin's option brokers.amqp", line: 4 },
      { path: 'actions[2].broker', reason: 'must be nats or amqp', line: 5 },
    ]);
    expect(
      problemsOf(
        `trigger: { object: project }
actions:
  - { type: publish, broker: nats, subject: 'projects.*', exchange: x }
  - type: webhook
    url: https://a.example
    body: { who: '{{user.id}}' }
`,
        { settings: withBrokers },
      ),
    ).to.deep.equal([
      { path: 'actions[0].exchange', reason: "only RabbitMQ ('amqp') publishes to an exchange", line: 3 },
      { path: 'actions[0].subject', reason: 'must be a NATS subject of dot-separated tokens, without spaces or wildcards (* >)', line: 3 },
      {
        path: 'actions[1].body.who',
        reason: 'placeholder {{user.id}} must start with one of event, delivery, workflow, scheduledAt, now',
        line: 6,
      },
    ]);
  });
});
