/** loadWorkflows on a started kernel: the sample application's workflow, and a broken file named with its path and line. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { MetadataError } from '../../../kernel';
import { loadWorkflows } from '../../../plugins/events/workflows';
import { startServer, SAMPLE_METADATA, type TestServer } from '../../helpers/server';

describe('events: loadWorkflows', function () {
  this.timeout(30_000);
  let sample: TestServer;
  let broken: TestServer;
  let dir: string;

  before(async () => {
    sample = await startServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oql-wf-'));
    fs.writeFileSync(
      path.join(dir, 'ticket.object.yml'),
      'fields:\n  title: { type: text }\n  state: { type: select, options: [open, closed] }\n',
    );
    fs.writeFileSync(
      path.join(dir, 'ticket_closed.workflow.yml'),
      '# closed tickets\ntrigger:\n  object: ticket\n  to: { state: closed }\nactions:\n  - type: webhook\n    url: https://hooks.example.com/t\n  - type: publish\n    broker: nats\n    subject: tickets.closed\n',
    );
    fs.writeFileSync(
      path.join(dir, 'ticket_bad.workflow.yml'),
      'trigger:\n  object: ticket\n  changed: [status]\nactions:\n  - type: webhook\n    url: ${NO_SUCH_VARIABLE_FOR_TESTS}\n',
    );
    broken = await startServer({ metadata: [dir] });
  });
  after(async () => {
    await sample?.stop();
    await broken?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reads the sample's project_done workflow, disabled", () => {
    const workflows = loadWorkflows(sample.kernel);
    expect(workflows.map((w) => w.name)).to.include('project_done');
    const done = workflows.find((w) => w.name === 'project_done')!;
    expect(done).to.deep.include({
      label: 'Project done',
      enabled: false,
      source: path.join(SAMPLE_METADATA, 'projects', 'project_done.workflow.yml'),
    });
    expect(done.trigger).to.deep.equal({
      kind: 'record',
      object: 'project',
      events: ['updated'],
      changed: ['status'],
      to: { status: 'done' },
    });
    expect(done.actions[0]).to.deep.include({
      type: 'webhook',
      url: 'https://example.com/hooks/project-done',
      method: 'POST',
      timeoutMs: 5000,
    });
    expect(done.retry.maxAttempts).to.equal(5);
  });

  it('one MetadataError naming every file, key path and line', () => {
    const settings = { retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 50 }, webhooks: { timeoutMs: 100 }, brokers: {} };
    let error: unknown;
    try {
      loadWorkflows(broken.kernel, settings, { env: {} });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(MetadataError);
    const bad = path.join(dir, 'ticket_bad.workflow.yml');
    const closed = path.join(dir, 'ticket_closed.workflow.yml');
    expect((error as MetadataError).message.split('\n')).to.deep.equal([
      `${bad}: trigger.changed[0]: unknown field 'status' of object 'ticket' (fields: id, title, state, created_at, created_by, updated_at, updated_by) (line 3)`,
      `${bad}: actions[0].url: environment variable NO_SUCH_VARIABLE_FOR_TESTS is not set (line 6)`,
      `${closed}: actions[1].broker: broker 'nats' is not configured: set the events plugin's option brokers.nats (line 9)`,
    ]);
    // With the variable set and NATS configured, only the unknown field is left.
    expect(() =>
      loadWorkflows(
        broken.kernel,
        { ...settings, brokers: { nats: { servers: 'nats://127.0.0.1:4222' } } },
        {
          env: { NO_SUCH_VARIABLE_FOR_TESTS: 'https://hooks.example.com/b' },
        },
      ),
    ).to.throw(MetadataError, /^[^\n]*trigger\.changed\[0\][^\n]*\(line 3\)$/);
  });
});
