/**
 * The dispatcher: one loop per datasource that claims due deliveries (claim.ts) and runs their
 * actions after commit.
 *
 * - A pass claims, in one transaction, as many due deliveries as fit beside those waiting to start
 *   (`batch` in all), once no more than half the batch waits. Passes run every `pollMs` (unref'd
 *   timer), on `wake()` (after an admin's retry, a scheduled minute enqueued), and when a chain
 *   of actions ends with some left; never two at once for one datasource: a wake during a pass runs
 *   one more pass after it.
 * - Deliveries this instance's fan-out makes need no pass: it makes only as many as fit beside
 *   those waiting to start (`preclaim`), writes them already claimed by this instance where their
 *   key's order lets them run (claim.ts), and hands those over once committed (`adopt`). When a
 *   chain ends the fan-out hears of it (`onRoom`).
 * - What a pass claimed is grouped by ordering key into chains. Up to `concurrency` chains run at
 *   once (per instance, over all datasources); a chain runs its deliveries one after another in
 *   sequence order. When one fails and will be retried, the rest of its chain is released (pending
 *   again, unchanged): the failed one, waiting for its retry, now blocks them (eligible.ts).
 * - Leases: every claim held (running or waiting in a chain) is renewed every `leaseSeconds / 3`,
 *   so an action may run longer than the lease; only an instance that stops renewing (killed, hung,
 *   cut off from its database) loses its claims, which another instance then takes over. A claim
 *   found lost at renewal has its action aborted (its signal) and its outcome is not written.
 * - A failing pass (database down) is logged and tried again at the next poll; nothing here throws
 *   out of a timer.
 * - `stop()` stops claiming, releases the claimed deliveries not started, and waits for the running
 *   actions (at most `stopTimeoutMs`, 10 s by default); then it aborts their signals and returns.
 *   Their claims expire and another instance runs them again: at least once.
 */
import { ObjectQLError, type Datasource, type Kernel } from '../../../kernel';
import type { ActionRunner, Delivery, Preclaim, Workflow } from '../types';
import { mayRetry, retryDelayMs } from './backoff';
import { claimDue, release, renewClaims, settleMany } from './claim';
import { chainsByKey } from './eligible';
import { errorText } from './table';
import { Passes } from './passes';
import { BatchWindow } from './window';

export interface DispatcherSettings {
  pollMs: number;
  batch: number;
  leaseSeconds: number;
  concurrency: number;
  /** How long stop() waits for running actions. Default 10 000. */
  stopTimeoutMs?: number;
}

export interface DispatcherOptions {
  kernel: Kernel;
  datasources: Datasource[];
  /** The workflows by name, read at every delivery (a reload may replace entries). */
  workflows: Map<string, Workflow>;
  runner: ActionRunner;
  settings: DispatcherSettings;
  /** Names this instance's claims (`claimed_by`): unique per process. */
  instanceId: string;
  /** For tests: the random source of the retry jitter. */
  random?: () => number;
  /** Called when a chain of a datasource ends leaving room for new deliveries (`preclaim` gives a claim). */
  onRoom?(datasource: string): void;
  /** How often outcome writes may start (window.ts); default BATCH_WINDOW_MS. */
  windowMs?: number;
}

export interface Dispatcher {
  /** Runs a pass now (after the current one, if one runs). */
  wake(): void;
  /**
   * A claim for up to `room` new deliveries of this datasource, when at least half the batch is
   * free (`batch` may wait to start) and no older ones may be waiting unclaimed; else undefined.
   */
  preclaim(datasource: string): (Preclaim & { room: number }) | undefined;
  /**
   * Once committed: runs deliveries written claimed with `preclaim`'s claim; `heldBack` were written
   * pending behind an earlier delivery of their key, to claim once a chain ends.
   */
  adopt(datasource: string, deliveries: Delivery[], heldBack?: number): void;
  /** Stops claiming, waits (bounded) for running actions, then resolves. Harmless twice. */
  stop(): Promise<void>;
}

type Outcome = 'done' | 'retry' | 'dead' | 'lost';

/** Errors of an engine action that the same input gets again: retrying cannot help, the delivery is dead at once. */
const PERMANENT_CODES = new Set(['VALIDATION_ERROR', 'INVALID_REQUEST', 'FORBIDDEN', 'UNAUTHORIZED', 'NOT_FOUND']);

/** Outcomes written in one transaction at most. */
const OUTCOMES_PER_TRANSACTION = 100;

function permanent(err: unknown): boolean {
  return err instanceof ObjectQLError && PERMANENT_CODES.has(err.code);
}

interface Slots {
  running: number;
  readonly max: number;
  waiting: Array<() => void>;
}

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const slots: Slots = { running: 0, max: Math.max(1, options.settings.concurrency), waiting: [] };
  const loops = options.datasources.map((ds) => new DatasourceLoop(ds, options, slots));
  for (const loop of loops) loop.start();
  const loopOf = (datasource: string) => loops.find((l) => l.name === datasource);
  let stopping: Promise<void> | undefined;
  return {
    wake() {
      for (const loop of loops) loop.wake();
    },
    preclaim(datasource) {
      return loopOf(datasource)?.preclaim();
    },
    adopt(datasource, deliveries, heldBack = 0) {
      loopOf(datasource)?.adopt(deliveries, heldBack);
    },
    stop() {
      stopping ??= Promise.all(loops.map((l) => l.stop())).then(() => undefined);
      return stopping;
    },
  };
}

class DatasourceLoop {
  private stopped = false;
  private readonly passes = new Passes(() => this.pass());
  private waitingForSlot = false;
  /**
   * Whether due deliveries may be waiting unclaimed: the last pass left some (blocked by their
   * key's order, or beyond its batch) or was skipped with the queue full, or deliveries were
   * released since. A chain that ends then looks for more at once; otherwise, with every delivery
   * of this instance's writes claimed as they commit, the next wake or poll does.
   */
  private backlog = true;
  /** The last pass found more due deliveries than it could take (or was skipped, the queue being full enough). */
  private overloaded = false;
  private poll: NodeJS.Timeout | undefined;
  private renewal: NodeJS.Timeout | undefined;
  /** Chains claimed and not started yet. */
  private readonly queue: Delivery[][] = [];
  /** Every claim this loop holds (queued or running), by id; the value aborts its action. */
  private readonly held = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();
  /** Outcomes of chains already ended, being written. */
  private readonly settling = new Set<Promise<Outcome>>();
  /** Outcomes waiting to be written, and the write under way. */
  private readonly outcomes: Array<{ id: string; data: Record<string, unknown>; resolve: (owned: boolean) => void }> = [];
  private writing: Promise<void> | undefined;
  private readonly window: BatchWindow;
  private readonly leaseMs: number;
  private readonly log: Kernel['logger'];

  constructor(
    private readonly ds: Datasource,
    private readonly options: DispatcherOptions,
    private readonly slots: Slots,
  ) {
    this.leaseMs = options.settings.leaseSeconds * 1000;
    this.window = new BatchWindow(options.windowMs);
    this.log = options.kernel.logger.child({ plugin: 'events', datasource: ds.name });
  }

  get name(): string {
    return this.ds.name;
  }

  start(): void {
    this.poll = setInterval(() => this.wake(), this.options.settings.pollMs);
    this.poll.unref();
    this.renewal = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.renewal.unref();
    this.wake();
  }

  wake(): void {
    this.passes.wake();
  }

  preclaim(): (Preclaim & { room: number }) | undefined {
    const room = this.options.settings.batch - this.queuedCount();
    // Older deliveries waiting unclaimed go first; and nothing until half the batch is free, so
    // that under load each fan-out brings many, where one per finished chain would cost a
    // transaction per delivery.
    if (this.stopped || this.overloaded || room < Math.ceil(this.options.settings.batch / 2)) return undefined;
    return { instanceId: this.options.instanceId, until: new Date(Date.now() + this.leaseMs).toISOString(), room };
  }

  /** Runs deliveries the fan-out wrote claimed by this instance (their keys' order checked). */
  adopt(deliveries: Delivery[], heldBack: number): void {
    // Those written pending wait for a claim pass, which the end of a chain then starts.
    if (heldBack > 0) this.backlog = true;
    void this.take(deliveries);
  }

  /** Holds deliveries claimed by this instance and queues them to run; gives them back once stopped. */
  private async take(claimed: Delivery[]): Promise<void> {
    if (claimed.length === 0) return;
    for (const d of claimed) this.held.set(d.id, new AbortController());
    if (this.stopped) {
      await this.releaseQuietly(claimed.map((d) => d.id));
      return;
    }
    for (const chain of chainsByKey(claimed)) this.queue.push(chain);
    this.pump();
  }

  private queuedCount(): number {
    return this.queue.reduce((n, chain) => n + chain.length, 0);
  }

  private async pass(): Promise<void> {
    // Claims no more than can start soon (what waits in the queue holds a lease for nothing), and
    // not before half the batch is free: under a backlog each claim's transaction then brings many,
    // where one per finished chain would cost a transaction per delivery.
    const queued = this.queuedCount();
    if (queued > this.options.settings.batch / 2) {
      this.backlog = true;
      this.overloaded = true;
      return;
    }
    try {
      const { claimed, left } = await claimDue(this.ds, {
        instanceId: this.options.instanceId,
        batch: this.options.settings.batch - queued,
        leaseMs: this.leaseMs,
      });
      this.backlog = left;
      this.overloaded = claimed.length >= this.options.settings.batch - queued;
      await this.take(claimed);
    } catch (err) {
      this.log.warn({ err: errorText(err) }, 'events: claiming deliveries failed; trying again at the next poll');
    }
  }

  /** Starts queued chains while the instance has free slots. */
  private pump(): void {
    while (!this.stopped && this.queue.length > 0 && this.slots.running < this.slots.max) {
      const chain = this.queue.shift()!;
      this.slots.running++;
      const run: Promise<void> = this.runChain(chain)
        .catch((err: unknown) => this.log.error({ err: errorText(err) }, 'events: a delivery chain failed'))
        .finally(() => {
          this.slots.running--;
          this.running.delete(run);
          // A freed slot: this loop's next chain, else another loop's waiting pump, then more if some wait.
          this.pump();
          this.slots.waiting.shift()?.();
          if (this.backlog) this.wake();
          if (this.preclaim()) this.options.onRoom?.(this.ds.name);
        });
      this.running.add(run);
    }
    if (this.queue.length > 0 && !this.stopped && !this.waitingForSlot) {
      this.waitingForSlot = true;
      this.slots.waiting.push(() => {
        this.waitingForSlot = false;
        this.pump();
      });
    }
  }

  private async runChain(chain: Delivery[]): Promise<void> {
    for (let i = 0; i < chain.length; i++) {
      const outcome = this.stopped ? 'lost' : await this.runOne(chain[i], i === chain.length - 1);
      if (outcome === 'retry' || outcome === 'lost') {
        // The rest waits behind this one (its retry, or its new owner): given back untouched.
        const rest = chain.slice(outcome === 'lost' && this.stopped ? i : i + 1).map((d) => d.id);
        await this.releaseQuietly(rest);
        return;
      }
    }
  }

  /**
   * Runs one delivery's action and writes its outcome. The last of its chain frees its slot without
   * waiting for the outcome's write (still tracked, and held against renewals until written): what
   * follows it needs no answer, and the writes of several gather in one transaction.
   */
  private async runOne(delivery: Delivery, last: boolean): Promise<Outcome> {
    const controller = this.held.get(delivery.id);
    if (!controller || controller.signal.aborted) {
      this.held.delete(delivery.id);
      return 'lost';
    }
    const [outcome, data] = await this.attempt(delivery, controller.signal).catch((err: unknown) => {
      this.held.delete(delivery.id);
      throw err;
    });
    if (outcome === 'lost') {
      this.held.delete(delivery.id);
      return 'lost';
    }
    const written = this.write(delivery, data)
      .then((ok): Outcome => (ok ? outcome : 'lost'))
      .finally(() => this.held.delete(delivery.id));
    if (!last) return written;
    this.settling.add(written);
    void written.finally(() => this.settling.delete(written));
    return outcome;
  }

  /** Runs the action; returns its outcome and what to write for it ('lost': nothing, the claim is gone). */
  private async attempt(delivery: Delivery, signal: AbortSignal): Promise<[Outcome, Record<string, unknown>]> {
    const workflow = this.options.workflows.get(delivery.workflow);
    const action = workflow?.actions[delivery.action];
    const gone = !workflow
      ? `workflow '${delivery.workflow}' no longer exists`
      : !workflow.enabled
        ? `workflow '${delivery.workflow}' is disabled`
        : !action
          ? `workflow '${delivery.workflow}' has no action ${delivery.action}`
          : undefined;
    if (gone || !workflow || !action) return ['dead', { status: 'dead', last_error: gone }];
    const attempts = delivery.attempts + 1;
    try {
      await this.options.runner.run(action, { kernel: this.options.kernel, workflow, delivery, event: delivery.payload.event, signal });
    } catch (err) {
      if (signal.aborted) return ['lost', {}];
      const lastError = errorText(err);
      if (!permanent(err) && mayRetry(workflow.retry, attempts)) {
        const nextAt = new Date(Date.now() + retryDelayMs(workflow.retry, attempts, this.options.random)).toISOString();
        this.log.info({ delivery: delivery.id, attempts, nextAt, error: lastError }, 'events: action failed; will retry');
        return ['retry', { status: 'pending', attempts, next_at: nextAt, last_error: lastError }];
      }
      this.log.warn({ delivery: delivery.id, attempts, error: lastError }, 'events: action failed for the last time; delivery is dead');
      return ['dead', { status: 'dead', attempts, last_error: lastError }];
    }
    return ['done', { status: 'done', attempts, last_error: null }];
  }

  /**
   * Writes an outcome; a database error is logged, and the claim left to expire (the delivery runs
   * again). Outcomes settled in the same batch window (window.ts) share one transaction.
   */
  private write(delivery: Delivery, data: Record<string, unknown>): Promise<boolean> {
    return new Promise((resolve) => {
      this.outcomes.push({ id: delivery.id, data, resolve });
      this.writing ??= this.writeOutcomes();
    });
  }

  private async writeOutcomes(): Promise<void> {
    await this.window.turn();
    while (this.outcomes.length > 0) {
      const batch = this.outcomes.splice(0, OUTCOMES_PER_TRANSACTION);
      let owned = new Set<string>();
      try {
        owned = await settleMany(
          this.ds,
          this.options.instanceId,
          batch.map(({ id, data }) => ({ id, data })),
        );
      } catch (err) {
        this.log.error(
          { deliveries: batch.map((o) => o.id), err: errorText(err) },
          'events: writing delivery outcomes failed; they will run again when their claims expire',
        );
      }
      for (const outcome of batch) {
        const ok = owned.has(outcome.id);
        if (!ok) this.log.warn({ delivery: outcome.id }, 'events: claim lost before the outcome was written; another instance runs it');
        outcome.resolve(ok);
      }
    }
    this.writing = undefined;
    // A delivery held back behind one of these (its key's order) may be claimed now they are over.
    if (this.backlog) this.wake();
  }

  private async renew(): Promise<void> {
    const ids = [...this.held.keys()];
    if (ids.length === 0) return;
    try {
      const still = await renewClaims(this.ds, ids, this.options.instanceId, this.leaseMs);
      for (const id of ids) {
        if (still.has(id)) continue;
        // Taken over by another instance (our lease had expired): not ours to run or settle.
        this.held.get(id)?.abort(new Error('claim lost'));
      }
    } catch (err) {
      this.log.warn({ err: errorText(err) }, 'events: renewing delivery claims failed');
    }
  }

  private async releaseQuietly(ids: string[]): Promise<void> {
    for (const id of ids) this.held.delete(id);
    if (ids.length > 0) this.backlog = true;
    try {
      await release(this.ds, ids, this.options.instanceId);
    } catch (err) {
      this.log.warn({ err: errorText(err) }, 'events: releasing claims failed; they are taken over when they expire');
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.poll);
    await this.passes.stop();
    const queued = this.queue.splice(0).flat();
    await this.releaseQuietly(queued.map((d) => d.id));
    const timeout = this.options.settings.stopTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      Promise.all([...this.running]).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeout);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (!waited) {
      this.log.warn(
        { running: this.running.size },
        'events: actions still running at stop; their deliveries run again once their claims expire',
      );
      for (const controller of this.held.values()) controller.abort(new Error('dispatcher stopped'));
    }
    await Promise.allSettled([...this.settling]);
    clearInterval(this.renewal);
  }
}
