/**
 * Reads one `<name>.workflow.yml` (docs/events.md) into a Workflow. The YAML keys are snake_case;
 * every problem is reported at its key path (`actions[0].url`) so that the loader can name the
 * file, the path and the line. Checked here: the shape, the object and every field a trigger or an
 * action names, the condition (the spec's filter language), the cron expression and its time zone,
 * webhook URLs, the brokers `publish` names (configured in the plugin's options) and template
 * placeholders. `${ENV_NAME}` in a webhook's url, headers and secret is replaced from the
 * environment here, once: a variable that is not set is a problem naming it.
 */
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import type { Filter, ObjectDefinition } from '../../../kernel';
import { parseFilter } from '../../../kernel/protocol';
import type {
  CreateAction,
  Operation,
  PublishAction,
  RecordTrigger,
  RetryPolicy,
  ScheduleTrigger,
  UpdateAction,
  WebhookAction,
  Workflow,
  WorkflowAction,
} from '../types';
import { templateProblems } from '../actions/template';
import { describeValue, parseWith, type PathSegment, type Report } from './problems';

/** What of the plugin's settings a workflow falls back on (the plugin's EventsSettings has it all). */
export interface WorkflowSettings {
  retry: RetryPolicy;
  webhooks: { timeoutMs: number };
  brokers: { nats?: unknown; amqp?: unknown };
}

export const DEFAULT_WORKFLOW_SETTINGS: WorkflowSettings = {
  retry: { maxAttempts: 10, initialDelayMs: 1000, maxDelayMs: 600_000 },
  webhooks: { timeoutMs: 10_000 },
  brokers: {},
};

export interface ParseContext {
  object(name: string): ObjectDefinition | undefined;
  settings: WorkflowSettings;
  /** Where `${NAME}` is looked up (process.env). */
  env: Record<string, string | undefined>;
}

const ALL_OPERATIONS: Operation[] = ['created', 'updated', 'deleted'];
const OPERATION_NAMES: Record<string, Operation> = {
  created: 'created',
  create: 'created',
  updated: 'updated',
  update: 'updated',
  deleted: 'deleted',
  delete: 'deleted',
};

const name = (what: string) => z.string({ error: `must be ${what}` }).min(1, { error: `must be ${what}` });
const positiveInt = z.number().int({ error: 'must be a whole number' }).positive({ error: 'must be above 0' });
const eventName = z.enum(Object.keys(OPERATION_NAMES) as [string, ...string[]], {
  error: 'must be created, updated or deleted',
});
const eventList = z.union([eventName, z.array(eventName).min(1)], { error: 'must be created, updated, deleted or a list of them' });
const valueMap = z.record(z.string(), z.unknown(), { error: 'must be a map of field: value' });

const workflowSchema = z.strictObject({
  name: z.string().optional(),
  label: name('a label').optional(),
  description: z.string().optional(),
  enabled: z.boolean().default(true),
  trigger: z.record(z.string(), z.unknown(), { error: 'must be a map: {object, events, condition...} or {schedule}' }),
  run_as: z.unknown().optional(),
  actions: z.array(z.unknown()).min(1, { error: 'must list at least one action' }),
  retry: z.unknown().optional(),
});

const recordTriggerSchema = z.strictObject({
  object: name('an object name'),
  events: eventList.optional(),
  on: eventList.optional(),
  condition: z.unknown().optional(),
  changed: z.array(name('a field name')).min(1).optional(),
  from: valueMap.optional(),
  to: valueMap.optional(),
});

const scheduleTriggerSchema = z.strictObject({
  schedule: name('a cron expression (minute hour day month weekday)'),
  timezone: name('a time zone such as Europe/Paris').optional(),
});

const runAsSchema = z.looseObject({
  id: name('a user id'),
  roles: z.array(name('a role')).default([]),
});

const retrySchema = z.strictObject({
  max_attempts: positiveInt.optional(),
  initial_delay_ms: positiveInt.optional(),
  max_delay_ms: positiveInt.optional(),
});

const method = z.preprocess(
  (v) => (typeof v === 'string' ? v.toUpperCase() : v),
  z.enum(['POST', 'PUT', 'PATCH', 'DELETE', 'GET'], { error: 'must be POST, PUT, PATCH, DELETE or GET' }),
);

const ACTION_SCHEMAS = {
  webhook: z.strictObject({
    type: z.literal('webhook'),
    url: name('an http(s) URL'),
    method: method.default('POST'),
    headers: z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be a map of header: value' }).default({}),
    body: z.unknown().optional(),
    secret: name('a secret (use ${ENV_NAME})').optional(),
    timeout_ms: positiveInt.optional(),
  }),
  update: z.strictObject({
    type: z.literal('update'),
    object: name('an object name').optional(),
    id: name('a record id or a {{placeholder}}').optional(),
    data: valueMap,
  }),
  create: z.strictObject({
    type: z.literal('create'),
    object: name('an object name'),
    data: valueMap,
  }),
  publish: z.strictObject({
    type: z.literal('publish'),
    broker: z.enum(['nats', 'amqp'], { error: 'must be nats or amqp' }),
    subject: name('a subject (NATS) or routing key / queue (RabbitMQ)'),
    exchange: z.string({ error: 'must be an exchange name' }).optional(),
    body: z.unknown().optional(),
  }),
} as const;
type ActionType = keyof typeof ACTION_SCHEMAS;

/** Reads one workflow file's content; undefined (after reporting why) when it is not valid. */
export function parseWorkflow(
  id: string,
  content: unknown,
  source: string | undefined,
  ctx: ParseContext,
  report: Report,
): Workflow | undefined {
  let problems = 0;
  const counted: Report = (path, reason) => {
    problems += 1;
    report(path, reason);
  };
  const raw = parseWith(workflowSchema, content, [], counted);
  if (!raw) return undefined;

  const trigger = parseTrigger(raw.trigger, ctx, counted);
  const triggerObject = trigger?.kind === 'record' ? trigger.object : undefined;
  const actions = raw.actions.map((a, i) => parseAction(a, ['actions', i], triggerObject, trigger?.kind, ctx, counted));
  const runAs = raw.run_as === undefined ? undefined : parseWith(runAsSchema, raw.run_as, ['run_as'], counted);
  const retryInput = raw.retry === undefined ? {} : parseWith(retrySchema, raw.retry, ['retry'], counted);
  const retry: RetryPolicy = {
    maxAttempts: retryInput?.max_attempts ?? ctx.settings.retry.maxAttempts,
    initialDelayMs: retryInput?.initial_delay_ms ?? ctx.settings.retry.initialDelayMs,
    maxDelayMs: retryInput?.max_delay_ms ?? ctx.settings.retry.maxDelayMs,
  };
  if (retry.initialDelayMs > retry.maxDelayMs) {
    counted(
      ['retry', retryInput?.initial_delay_ms !== undefined ? 'initial_delay_ms' : 'max_delay_ms'],
      'initial_delay_ms must not exceed max_delay_ms',
    );
  }
  if (problems > 0 || !trigger) return undefined;
  return {
    name: id,
    ...(source !== undefined ? { source } : {}),
    label: raw.label ?? titleCase(id),
    trigger,
    ...(runAs ? { runAs } : {}),
    actions: actions as WorkflowAction[],
    retry,
    enabled: raw.enabled,
  };
}

function parseTrigger(input: Record<string, unknown>, ctx: ParseContext, report: Report): RecordTrigger | ScheduleTrigger | undefined {
  if ('schedule' in input) {
    const t = parseWith(scheduleTriggerSchema, input, ['trigger'], report);
    if (!t) return undefined;
    const cron = t.schedule.trim();
    const cronProblem = checkCron(cron, t.timezone);
    if (cronProblem) report(['trigger', 'schedule'], cronProblem);
    if (t.timezone !== undefined && !isTimeZone(t.timezone))
      report(['trigger', 'timezone'], `unknown time zone '${t.timezone}' (use an IANA name such as Europe/Paris)`);
    return { kind: 'schedule', cron, ...(t.timezone !== undefined ? { timezone: t.timezone } : {}) };
  }
  const t = parseWith(recordTriggerSchema, input, ['trigger'], report);
  if (!t) return undefined;
  if (t.events !== undefined && t.on !== undefined) report(['trigger', 'on'], "give either 'events' or 'on', not both");
  const def = ctx.object(t.object);
  if (!def) {
    report(['trigger', 'object'], `unknown object '${t.object}'`);
    return undefined;
  }
  const given = t.events ?? t.on;
  const events =
    given === undefined ? [...ALL_OPERATIONS] : [...new Set((Array.isArray(given) ? given : [given]).map((e) => OPERATION_NAMES[e]))];
  const trigger: RecordTrigger = { kind: 'record', object: t.object, events };
  if (t.condition !== undefined && t.condition !== null) {
    let filter: Filter | undefined;
    try {
      filter = parseFilter(t.condition);
    } catch (err) {
      report(['trigger', 'condition'], `not a valid filter: ${(err as Error).message}`);
    }
    for (const field of filterFields(filter)) {
      if (!def.fields[field]) report(['trigger', 'condition'], unknownField(def, field));
    }
    trigger.condition = t.condition;
  }
  if (t.changed) {
    t.changed.forEach((field, i) => {
      if (!def.fields[field]) report(['trigger', 'changed', i], unknownField(def, field));
    });
    trigger.changed = t.changed;
  }
  for (const key of ['from', 'to'] as const) {
    const map = t[key];
    if (!map) continue;
    for (const field of Object.keys(map)) {
      if (!def.fields[field]) report(['trigger', key, field], unknownField(def, field));
    }
    trigger[key] = map;
  }
  if (t.from && !events.includes('updated'))
    report(['trigger', 'from'], "'from' holds for updates only, and this trigger has no 'updated' event");
  return trigger;
}

function parseAction(
  input: unknown,
  at: PathSegment[],
  triggerObject: string | undefined,
  triggerKind: 'record' | 'schedule' | undefined,
  ctx: ParseContext,
  report: Report,
): WorkflowAction | undefined {
  const type = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(ACTION_SCHEMAS, type)) {
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      report(at, `expected a map {type, ...}, got ${describeValue(input)}`);
    else
      report(
        [...at, 'type'],
        `must be one of ${Object.keys(ACTION_SCHEMAS).join(', ')}${type === undefined ? '' : ` (got ${describeValue(type)})`}`,
      );
    return undefined;
  }
  let problems = 0;
  const counted: Report = (path, reason) => {
    problems += 1;
    report(path, reason);
  };
  const templates = (template: unknown, key: string) => {
    for (const p of templateProblems(template)) counted([...at, key, ...p.at], p.reason);
  };
  let action: WorkflowAction | undefined;
  switch (type as ActionType) {
    case 'webhook': {
      const a = parseWith(ACTION_SCHEMAS.webhook, input, at, counted);
      if (!a) return undefined;
      const env = (value: string, path: PathSegment[]) => substituteEnv(value, ctx.env, (reason) => counted([...at, ...path], reason));
      const url = env(a.url, ['url']);
      if (url !== undefined) {
        const problem = urlProblem(url);
        if (problem) counted([...at, 'url'], problem);
      }
      const headers: Record<string, string> = {};
      for (const [hname, value] of Object.entries(a.headers)) {
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(hname)) counted([...at, 'headers', hname], 'is not a valid header name');
        headers[hname] = env(value, ['headers', hname]) ?? '';
      }
      const secret = a.secret === undefined ? undefined : env(a.secret, ['secret']);
      templates(a.body, 'body');
      const webhook: WebhookAction = {
        type: 'webhook',
        url: url ?? '',
        method: a.method,
        headers,
        timeoutMs: a.timeout_ms ?? ctx.settings.webhooks.timeoutMs,
      };
      if (a.body !== undefined) webhook.body = a.body;
      if (secret !== undefined) webhook.secret = secret;
      action = webhook;
      break;
    }
    case 'update': {
      const a = parseWith(ACTION_SCHEMAS.update, input, at, counted);
      if (!a) return undefined;
      const objectName = a.object ?? triggerObject;
      if (objectName === undefined) {
        if (triggerKind === 'schedule') counted([...at, 'object'], 'is required: a scheduled workflow has no triggering record');
      } else {
        checkData(objectName, a.data, a.object !== undefined ? [...at, 'object'] : ['trigger', 'object'], [...at, 'data'], ctx, counted);
      }
      if (a.id === undefined && (triggerKind === 'schedule' || (a.object !== undefined && a.object !== triggerObject))) {
        counted([...at, 'id'], 'is required: the record to update is not the triggering one');
      }
      templates(a.data, 'data');
      templates(a.id, 'id');
      const update: UpdateAction = { type: 'update', data: a.data };
      if (a.object !== undefined) update.object = a.object;
      if (a.id !== undefined) update.id = a.id;
      action = update;
      break;
    }
    case 'create': {
      const a = parseWith(ACTION_SCHEMAS.create, input, at, counted);
      if (!a) return undefined;
      checkData(a.object, a.data, [...at, 'object'], [...at, 'data'], ctx, counted);
      templates(a.data, 'data');
      action = { type: 'create', object: a.object, data: a.data } satisfies CreateAction;
      break;
    }
    case 'publish': {
      const a = parseWith(ACTION_SCHEMAS.publish, input, at, counted);
      if (!a) return undefined;
      if (!ctx.settings.brokers[a.broker]) {
        counted([...at, 'broker'], `broker '${a.broker}' is not configured: set the events plugin's option brokers.${a.broker}`);
      }
      if (a.broker === 'nats') {
        if (a.exchange !== undefined) counted([...at, 'exchange'], "only RabbitMQ ('amqp') publishes to an exchange");
        if (!/^[^\s*>.]+(\.[^\s*>.]+)*$/.test(a.subject)) {
          counted([...at, 'subject'], 'must be a NATS subject of dot-separated tokens, without spaces or wildcards (* >)');
        }
      }
      templates(a.body, 'body');
      const publish: PublishAction = { type: 'publish', broker: a.broker, subject: a.subject };
      if (a.exchange !== undefined) publish.exchange = a.exchange;
      if (a.body !== undefined) publish.body = a.body;
      action = publish;
      break;
    }
  }
  return problems > 0 ? undefined : action;
}

/** Checks that the object exists and that every key of `data` is one of its fields. */
function checkData(
  objectName: string,
  data: Record<string, unknown>,
  objectPath: PathSegment[],
  dataPath: PathSegment[],
  ctx: ParseContext,
  report: Report,
): void {
  const def = ctx.object(objectName);
  if (!def) {
    report(objectPath, `unknown object '${objectName}'`);
    return;
  }
  for (const field of Object.keys(data)) {
    if (!def.fields[field]) report([...dataPath, field], unknownField(def, field));
  }
}

function unknownField(def: ObjectDefinition, field: string): string {
  return `unknown field '${field}' of object '${def.name}' (fields: ${Object.keys(def.fields).join(', ')})`;
}

/** The fields a parsed filter names (compared fields and field references). */
export function filterFields(filter: Filter | undefined): string[] {
  if (!filter) return [];
  if ('and' in filter) return filter.and.flatMap(filterFields);
  if ('or' in filter) return filter.or.flatMap(filterFields);
  if ('not' in filter) return filterFields(filter.not);
  return 'ref' in filter ? [filter.field, filter.ref] : [filter.field];
}

/** `${NAME}` replaced from the environment; undefined (after reporting each missing name) when one is not set. */
export function substituteEnv(
  value: string,
  env: Record<string, string | undefined>,
  report: (reason: string) => void,
): string | undefined {
  let missing = false;
  const out = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, key: string) => {
    const v = env[key];
    if (v === undefined || v === '') {
      missing = true;
      report(`environment variable ${key} is not set`);
      return '';
    }
    return v;
  });
  return missing ? undefined : out;
}

/** Why a webhook URL cannot be called, or undefined. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL (expected http:// or https://...)';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `must be an http or https URL (got ${parsed.protocol.slice(0, -1)})`;
  if (parsed.username || parsed.password) return 'must not hold credentials: send them in headers, from the environment (${ENV_NAME})';
  if (!parsed.hostname) return 'has no host';
  return undefined;
}

/** Why a cron expression is not one (five fields: minute hour day-of-month month day-of-week), or undefined. */
export function checkCron(cron: string, timezone?: string): string | undefined {
  const fields = cron.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return `must have five fields (minute hour day-of-month month day-of-week), got ${fields.length}: '${cron}'`;
  try {
    CronExpressionParser.parse(cron, timezone && isTimeZone(timezone) ? { tz: timezone } : {});
  } catch (err) {
    return `is not a valid cron expression: ${(err as Error).message}`;
  }
  return undefined;
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function titleCase(id: string): string {
  return id
    .split(/[_\-\s]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}
