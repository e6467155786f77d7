/**
 * The action runner: runs one action of one workflow for one delivery, and resolves when the
 * outside accepted it (a 2xx, a broker's acknowledgement, a committed write) or throws an Error
 * naming the cause, for the dispatcher to retry.
 * - webhook: an HTTP request (webhook.ts: SSRF guard, signature, timeout, bounded response);
 * - update / create: through the data engine as the workflow's `run_as` identity, so validation,
 *   hooks and permissions apply as to any caller;
 * - publish: NATS JetStream or RabbitMQ (brokers.ts).
 * Bodies and data are templates (template.ts): `{{event.record.name}}`, `{{delivery.id}}`,
 * `{{workflow.name}}`, `{{scheduledAt}}`, `{{now}}`.
 */
import type { DataRecord, Kernel } from '../../../kernel';
import type { ActionContext, ActionRunner, PublishAction, WebhookAction, WorkflowAction } from '../types';
import { AmqpPublisher, NatsPublisher, type AmqpSettings, type NatsSettings } from './brokers';
import { renderTemplate } from './template';
import { WebhookSender } from './webhook';
import type { LookupAll } from './ssrf';

export { renderTemplate, templateProblems, TEMPLATE_ROOTS } from './template';
export { signPayload, verifySignature, SIGNATURE_HEADER, TIMESTAMP_HEADER, DELIVERY_HEADER } from './signature';
export { isBlockedAddress, resolveTarget, type LookupAll } from './ssrf';
export { WebhookSender, webhookHeaders, MAX_RECEIVERS, MAX_RESPONSE_BYTES } from './webhook';
export { AmqpPublisher, NatsPublisher, subjectCovers } from './brokers';

/** What of the plugin's settings the runner uses (the plugin's EventsSettings has it all). */
export interface ActionSettings {
  webhooks: { timeoutMs: number; allowHosts: string[]; maxBodyBytes: number };
  brokers: { nats?: NatsSettings; amqp?: AmqpSettings };
}

export interface ActionRunnerOptions {
  /** Actions run at once (the dispatcher's concurrency): the connections kept per webhook receiver. Default 8. */
  concurrency?: number;
  /** For tests: how webhook host names resolve (default: the system resolver). */
  lookup?: LookupAll;
}

/** The values templates read: `event`, `delivery`, `workflow`, `scheduledAt`, `now`. */
export function templateScope(context: Pick<ActionContext, 'workflow' | 'delivery' | 'event'>): Record<string, unknown> {
  const { workflow, delivery, event } = context;
  return {
    event: event ?? null,
    delivery: { id: delivery.id, action: delivery.action, attempts: delivery.attempts, createdAt: delivery.createdAt },
    workflow: { name: workflow.name, label: workflow.label },
    scheduledAt: delivery.payload.scheduledAt ?? null,
    now: new Date().toISOString(),
  };
}

/** The body sent when an action gives none (docs/events.md). */
export function standardBody(context: Pick<ActionContext, 'workflow' | 'delivery' | 'event'>): Record<string, unknown> {
  const { workflow, delivery, event } = context;
  if (!event)
    return { id: delivery.id, workflow: workflow.name, scheduledAt: delivery.payload.scheduledAt ?? null, at: new Date().toISOString() };
  return {
    id: delivery.id,
    workflow: workflow.name,
    object: event.object,
    operation: event.operation,
    position: event.position,
    record: event.record,
    previous: event.previous ?? null,
    fields: event.fields,
    at: event.at,
  };
}

function bodyOf(action: WebhookAction | PublishAction, context: ActionContext): unknown {
  return action.body === undefined ? standardBody(context) : renderTemplate(action.body, templateScope(context));
}

export function createActionRunner(kernel: Kernel, settings: ActionSettings, options: ActionRunnerOptions = {}): ActionRunner {
  let nats: NatsPublisher | undefined;
  let amqp: AmqpPublisher | undefined;
  const webhooks = new WebhookSender({
    allowHosts: settings.webhooks.allowHosts,
    maxBodyBytes: settings.webhooks.maxBodyBytes,
    connections: options.concurrency ?? 8,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });

  async function runEngine(action: Extract<WorkflowAction, { type: 'update' | 'create' }>, context: ActionContext): Promise<void> {
    const { workflow, event, delivery } = context;
    const scope = templateScope(context);
    const data = renderTemplate(action.data, scope) as DataRecord;
    const engine = kernel.engine;
    const request = { ...(workflow.runAs ? { user: workflow.runAs } : {}), requestId: delivery.id };
    if (action.type === 'create') {
      await engine.repo(action.object, request).create(data);
      return;
    }
    const object = action.object ?? (workflow.trigger.kind === 'record' ? workflow.trigger.object : undefined);
    if (!object) throw new Error(`workflow '${workflow.name}': an update action of a scheduled workflow needs 'object'`);
    const rendered = action.id === undefined ? event?.recordId : renderTemplate(action.id, scope);
    if (rendered === undefined || rendered === null || rendered === '') {
      throw new Error(
        `workflow '${workflow.name}': no record id to update (${action.id === undefined ? 'no triggering event' : `'${action.id}' is empty`})`,
      );
    }
    if (typeof rendered !== 'string' && typeof rendered !== 'number') {
      throw new Error(`workflow '${workflow.name}': the record id to update must be a string or a number (got ${typeof rendered})`);
    }
    await engine.repo(object, request).update(String(rendered), data);
  }

  async function runPublish(action: PublishAction, context: ActionContext): Promise<void> {
    const content = Buffer.from(JSON.stringify(bodyOf(action, context) ?? null));
    if (action.broker === 'nats') {
      if (!settings.brokers.nats) throw new Error("broker 'nats' is not configured (events plugin option brokers.nats)");
      nats ??= new NatsPublisher(settings.brokers.nats);
      await nats.publish(action.subject, content, context.delivery.id);
    } else {
      if (!settings.brokers.amqp) throw new Error("broker 'amqp' is not configured (events plugin option brokers.amqp)");
      amqp ??= new AmqpPublisher(settings.brokers.amqp);
      await amqp.publish(action.exchange ?? '', action.subject, content, context.delivery.id);
    }
  }

  return {
    async run(action, context) {
      if (context.signal.aborted) throw new Error('action cancelled: the dispatcher is stopping');
      switch (action.type) {
        case 'webhook':
          await webhooks.send(action, { deliveryId: context.delivery.id, body: bodyOf(action, context), signal: context.signal });
          return;
        case 'update':
        case 'create':
          await runEngine(action, context);
          return;
        case 'publish':
          await runPublish(action, context);
          return;
        default:
          throw new Error(`unknown action type '${(action as { type: string }).type}'`);
      }
    },
    async close() {
      const closing = [webhooks.close(), nats?.close(), amqp?.close()].filter((p): p is Promise<void> => p !== undefined);
      nats = undefined;
      amqp = undefined;
      await Promise.all(closing);
    },
  };
}
