/** Shared by the deliveries tests: a fake action runner, workflows and deliveries, waiting. */
import pino from 'pino';
import type { Datasource, Kernel } from '../../../kernel';
import { DELIVERY_TABLE, createDeliveryQueue, fromDeliveryRow } from '../../../plugins/events/delivery';
import type { ActionContext, ActionRunner, Delivery, NewDelivery, Workflow, WorkflowAction } from '../../../plugins/events/types';

export const kernel = { logger: pino({ level: process.env.EVENTS_TEST_LOG ?? 'silent' }) } as unknown as Kernel;

export interface Call {
  id: string;
  key: string;
  sequence: number;
  by: string;
  ok: boolean;
}

/** Records every run; fails the first `failures[key]` runs of a key; optionally slow. */
export function fakeRunner(by: string, calls: Call[], failures: Map<string, number> = new Map(), delayMs = 0): ActionRunner {
  return {
    async run(_action: WorkflowAction, ctx: ActionContext) {
      const d = ctx.delivery;
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      const left = failures.get(d.orderingKey) ?? 0;
      const ok = left <= 0;
      calls.push({ id: d.id, key: d.orderingKey, sequence: d.sequence, by, ok });
      if (!ok) {
        failures.set(d.orderingKey, left - 1);
        throw new Error(`endpoint answered 503 for ${d.id}`);
      }
    },
    async close() {},
  };
}

export function workflow(name: string, retry = { maxAttempts: 5, initialDelayMs: 10, maxDelayMs: 40 }): Workflow {
  return {
    name,
    label: name,
    trigger: { kind: 'record', object: 'task', events: ['created'] },
    actions: [{ type: 'webhook', url: 'http://127.0.0.1:9/hook', method: 'POST', headers: {}, timeoutMs: 1000 }],
    retry,
    enabled: true,
  };
}

export function delivery(wf: string, key: string, position: number): NewDelivery {
  return {
    id: `default:${position}:${wf}:0`,
    workflow: wf,
    action: 0,
    orderingKey: key,
    sequence: position * 1000,
    payload: {
      event: {
        position,
        datasource: 'default',
        object: 'task',
        recordId: key,
        operation: 'created',
        fields: [],
        record: { id: key },
        at: new Date().toISOString(),
      },
    },
  };
}

export async function enqueue(ds: Datasource, deliveries: NewDelivery[]): Promise<void> {
  const queue = createDeliveryQueue();
  await ds.transaction((tx) => queue.enqueue(ds, tx, deliveries));
}

export async function all(ds: Datasource): Promise<Delivery[]> {
  return (await ds.find(DELIVERY_TABLE, { sort: [{ field: 'sequence', dir: 'asc' }] })).map(fromDeliveryRow);
}

export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
