/**
 * Schedule triggers: at each minute a workflow's cron expression names, one delivery per action is
 * enqueued in the default datasource. Every instance runs this scheduler; the delivery's id is made
 * of the workflow, the minute and the action (`${workflow}:${scheduledAt}:${action}`), so whichever
 * instance comes first adds it and the others find it there (enqueueOnce): one run per minute, not
 * one per instance. The dispatcher then runs it like any delivery (ordering key
 * `${workflow}:schedule`: one workflow's runs in minute order).
 *
 * Minutes are checked from the scheduler's start on: a minute missed while no instance ran is not
 * caught up; a late timer (a busy event loop) catches up on the minutes since its last tick.
 */
import { CronExpressionParser } from 'cron-parser';
import type { Datasource, Kernel } from '../../../kernel';
import type { DeliveryQueue, NewDelivery, ScheduleTrigger, Workflow } from '../types';
import { errorText } from './table';

export interface SchedulerOptions {
  kernel: Kernel;
  /** Where schedule deliveries are kept: the default datasource. */
  datasource: Datasource;
  workflows: Map<string, Workflow>;
  queue: DeliveryQueue;
  /** Called after a tick enqueued something (the dispatcher's wake). */
  wake: () => void;
  /** For tests: the clock. */
  now?: () => number;
}

export interface Scheduler {
  /** Runs one tick now (tests); resolves when its deliveries are enqueued. */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

const MINUTE = 60_000;
/** The most minutes one late tick catches up on. */
const MAX_CATCH_UP = 60;

/**
 * The minutes in (from, to] at which a 5-field cron expression fires, in `timezone` (UTC when
 * absent). Throws on an expression that is not 5 fields or does not parse, naming it.
 */
export function dueMinutes(trigger: Pick<ScheduleTrigger, 'cron' | 'timezone'>, from: number, to: number, max = MAX_CATCH_UP): Date[] {
  const fields = trigger.cron.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`cron '${trigger.cron}' must have 5 fields (minute hour day-of-month month day-of-week)`);
  const expression = CronExpressionParser.parse(trigger.cron, { currentDate: new Date(from), tz: trigger.timezone ?? 'UTC' });
  const out: Date[] = [];
  for (;;) {
    const next = expression.next().getTime();
    if (next > to || out.length >= max) return out;
    out.push(new Date(next));
  }
}

/** The deliveries of one scheduled minute of a workflow, one per action. */
export function scheduledDeliveries(workflow: Workflow, minute: Date): NewDelivery[] {
  const scheduledAt = minute.toISOString();
  const epochMinutes = Math.floor(minute.getTime() / MINUTE);
  return workflow.actions.map((_, action) => ({
    id: `${workflow.name}:${scheduledAt}:${action}`,
    workflow: workflow.name,
    action,
    orderingKey: `${workflow.name}:schedule`,
    sequence: epochMinutes * 1000 + action,
    payload: { scheduledAt },
  }));
}

export function startScheduler(options: SchedulerOptions): Scheduler {
  const now = options.now ?? (() => Date.now());
  const log = options.kernel.logger.child({ plugin: 'events', part: 'scheduler' });
  const broken = new Set<string>();
  let last = Math.floor(now() / MINUTE) * MINUTE; // the current minute started before us: not run
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let ticking: Promise<void> | undefined;

  const tick = async (): Promise<void> => {
    const to = Math.floor(now() / MINUTE) * MINUTE;
    const from = last;
    if (to <= from) return;
    let added = 0;
    for (const workflow of options.workflows.values()) {
      if (!workflow.enabled || workflow.trigger.kind !== 'schedule') continue;
      let minutes: Date[];
      try {
        minutes = dueMinutes(workflow.trigger, from, to);
      } catch (err) {
        if (!broken.has(workflow.name)) log.error({ workflow: workflow.name, err: errorText(err) }, 'events: schedule cannot be read');
        broken.add(workflow.name);
        continue;
      }
      for (const minute of minutes) {
        for (const delivery of scheduledDeliveries(workflow, minute)) {
          try {
            if (await options.queue.enqueueOnce(options.datasource, delivery)) added++;
          } catch (err) {
            log.warn({ delivery: delivery.id, err: errorText(err) }, 'events: enqueueing a scheduled delivery failed');
            // Not marked done: the next tick tries this minute again.
            return;
          }
        }
      }
    }
    last = to;
    if (added > 0) options.wake();
  };

  const arm = () => {
    if (stopped) return;
    // Just after the next minute boundary.
    const wait = MINUTE - (now() % MINUTE) + 50;
    timer = setTimeout(() => {
      ticking = tick()
        .catch((err: unknown) => log.error({ err: errorText(err) }, 'events: schedule tick failed'))
        .finally(() => {
          ticking = undefined;
          arm();
        });
    }, wait);
    timer.unref();
  };
  arm();

  return {
    async tick() {
      await ticking;
      ticking = tick();
      try {
        await ticking;
      } finally {
        ticking = undefined;
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
    },
  };
}
