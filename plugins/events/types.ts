/**
 * The shapes the events plugin's parts share (docs/events.md): the change feed's events, the
 * workflows read from `*.workflow.yml`, and the deliveries that carry a workflow's actions to the
 * outside, at least once. The outbox (store.ts) records events inside the write's transaction; the
 * fan-out makes their deliveries from the feed after commit, and the dispatcher (delivery/) claims
 * and runs them.
 */
import type { DataRecord, Datasource, Kernel, Transaction, User } from '../../kernel';

export type Operation = 'created' | 'updated' | 'deleted';

/** One committed change, as the change feed keeps it (table objectql_event, one outbox per datasource). */
export interface StoredEvent {
  /** Per datasource, 1, 2, 3...: handed out in commit order (the counter row is locked until commit). */
  position: number;
  datasource: string;
  object: string;
  recordId: string;
  operation: Operation;
  /** Fields set by a create, changed by an update; empty for a delete. */
  fields: string[];
  /** After the change (before it, for a delete); unmasked: readers apply their own permissions. */
  record: DataRecord;
  /** Before an update. */
  previous?: DataRecord;
  userId?: string;
  requestId?: string;
  /** ISO 8601, when the change was recorded. */
  at: string;
}

/** A trigger on record changes: which object, which operations, and an optional condition. */
export interface RecordTrigger {
  kind: 'record';
  object: string;
  events: Operation[];
  /** The spec's filter language (array or map form), evaluated on the record after the change. */
  condition?: unknown;
  /** Fires only when one of these fields changed (updates; a create sets them). */
  changed?: string[];
  /** Previous values that must hold (updates): field → value. */
  from?: Record<string, unknown>;
  /** New values that must hold: field → value. */
  to?: Record<string, unknown>;
}

/** A periodic trigger: a cron expression (5 fields, minutes), in UTC unless `timezone`. */
export interface ScheduleTrigger {
  kind: 'schedule';
  cron: string;
  timezone?: string;
}

export interface WebhookAction {
  type: 'webhook';
  url: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET';
  headers: Record<string, string>;
  /** A body template: any JSON with `{{event.record.name}}`-style placeholders; absent = the standard body (docs/events.md). */
  body?: unknown;
  /** HMAC-SHA256 key: the signature header is sent when set. */
  secret?: string;
  timeoutMs: number;
}

/** Updates the triggering record (or `id`), through the engine as the workflow's identity. */
export interface UpdateAction {
  type: 'update';
  object?: string;
  id?: string;
  data: Record<string, unknown>;
}

/** Creates a record through the engine as the workflow's identity. */
export interface CreateAction {
  type: 'create';
  object: string;
  data: Record<string, unknown>;
}

/** Publishes the event to a broker configured in the plugin's options (NATS JetStream subject, RabbitMQ queue or exchange). */
export interface PublishAction {
  type: 'publish';
  broker: 'nats' | 'amqp';
  /** NATS subject, or RabbitMQ routing key / queue. */
  subject: string;
  /** RabbitMQ exchange ('' = the default exchange, `subject` being the queue). */
  exchange?: string;
  body?: unknown;
}

export type WorkflowAction = WebhookAction | UpdateAction | CreateAction | PublishAction;

export interface RetryPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export interface Workflow {
  name: string;
  /** The file it was read from (error messages). */
  source?: string;
  label: string;
  trigger: RecordTrigger | ScheduleTrigger;
  /** The identity engine actions run as. */
  runAs?: User;
  actions: WorkflowAction[];
  retry: RetryPolicy;
  enabled: boolean;
}

export type DeliveryStatus = 'pending' | 'claimed' | 'done' | 'dead' | 'discarded';

/** What a delivery carries: the event (record triggers) or the scheduled time (schedules). */
export interface DeliveryPayload {
  event?: StoredEvent;
  scheduledAt?: string;
}

/** One action of one workflow for one event (table objectql_delivery, in the event's datasource). */
export interface Delivery {
  /** The idempotency key sent with it: `${datasource}:${position}:${workflow}:${action}` (schedules: `${workflow}:${scheduledAt}:${action}`). */
  id: string;
  workflow: string;
  action: number;
  /** Deliveries of one key run one at a time, in `sequence` order: `${workflow}:${object}:${recordId}`. */
  orderingKey: string;
  /** position * 1000 + action (schedules: epoch minutes * 1000 + action). */
  sequence: number;
  status: DeliveryStatus;
  attempts: number;
  /** ISO 8601: not run before. */
  nextAt: string;
  claimedBy?: string;
  claimedUntil?: string;
  lastError?: string;
  payload: DeliveryPayload;
  createdAt: string;
  updatedAt: string;
}

export type NewDelivery = Pick<Delivery, 'id' | 'workflow' | 'action' | 'orderingKey' | 'sequence' | 'payload'>;

/** A claim written with a new delivery's row: it starts claimed by this instance until `until`. */
export interface Preclaim {
  instanceId: string;
  until: string;
}

export interface DeliveryQueue {
  /**
   * Inside the fan-out's transaction (delivery/fanout.ts): deliveries of committed events. With
   * `claim` they are written already claimed by this instance (delivery/claim.ts); returns the
   * deliveries written claimed, to be run after commit.
   */
  enqueue(ds: Datasource, tx: Transaction, deliveries: NewDelivery[], claim?: Preclaim): Promise<Delivery[]>;
  /** Outside a transaction (schedules): a delivery whose id exists already is not added again. */
  enqueueOnce(ds: Datasource, delivery: NewDelivery): Promise<boolean>;
}

/** Runs one action; resolves when the outside accepted it, throws (with a message naming the cause) when it did not. */
export interface ActionRunner {
  run(action: WorkflowAction, context: ActionContext): Promise<void>;
  close(): Promise<void>;
}

export interface ActionContext {
  kernel: Kernel;
  workflow: Workflow;
  delivery: Delivery;
  event?: StoredEvent;
  signal: AbortSignal;
}
