/**
 * GET /health/ready (and under the base path): whether this instance can serve, as a load balancer
 * or an orchestrator asks it. Each datasource is pinged and each dependency plugins report through
 * the `readiness` hook (their Redis connections) is checked, all at once, each for at most
 * `health.readyTimeoutMs`; the answer is kept `health.readyCacheMs`, and checks in flight are
 * shared, so a flood of readiness requests never becomes a flood of pings. 200 lists every
 * dependency's state; 503 (SERVICE_UNAVAILABLE) names each that is down. `/health` stays the
 * liveness answer: it never asks a dependency.
 */
import type { Express, Request, Response } from 'express';
import type { Kernel } from '../kernel';
import { ObjectQLError } from '../errors';

/** A dependency a plugin reports through the `readiness` hook. */
export interface ReadinessCheck {
  /** What it is, e.g. 'redis'. */
  kind: string;
  /** Which one, e.g. 'auth sessions'; a datasource's name for datasources. */
  name: string;
  /** Resolves when the dependency answers; rejects, with a message saying why, when it does not. */
  check(): Promise<void>;
}

export interface ReadinessState {
  kind: string;
  name: string;
  /** 'unchecked': a datasource whose driver has no ping. */
  status: 'up' | 'down' | 'unchecked';
  /** Why it is down. */
  error?: string;
  /** How long the check took. */
  ms: number;
}

export class Readiness {
  private inFlight?: Promise<ReadinessState[]>;
  private last?: { at: number; states: ReadinessState[] };

  constructor(private readonly kernel: Kernel) {}

  /** Every dependency's state, at most `readyCacheMs` old. */
  states(): Promise<ReadinessState[]> {
    if (this.inFlight) return this.inFlight;
    if (this.last && Date.now() - this.last.at < this.kernel.config.health.readyCacheMs) return Promise.resolve(this.last.states);
    this.inFlight = this.checkAll()
      .then((states) => {
        this.last = { at: Date.now(), states };
        return states;
      })
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private checkAll(): Promise<ReadinessState[]> {
    const datasources = this.kernel.resolve('datasources');
    const checks: Array<Omit<ReadinessCheck, 'check'> & { check?: () => Promise<void> }> = datasources.names().map((name) => {
      const ds = datasources.get(name);
      return { kind: 'datasource', name, check: ds.ping && (() => ds.ping!()) };
    });
    checks.push(...this.kernel.hooks.readiness.call([]));
    return Promise.all(checks.map((c) => this.run(c)));
  }

  private async run(c: Omit<ReadinessCheck, 'check'> & { check?: () => Promise<void> }): Promise<ReadinessState> {
    const base = { kind: c.kind, name: c.name };
    if (!c.check) return { ...base, status: 'unchecked', ms: 0 };
    const started = Date.now();
    const limit = this.kernel.config.health.readyTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(c.check),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${limit} ms`)), limit))),
      ]);
      return { ...base, status: 'up', ms: Date.now() - started };
    } catch (err) {
      const error = err instanceof Error && err.message ? err.message : String(err);
      return { ...base, status: 'down', error, ms: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Mounts GET /health/ready (and `{basePath}/health/ready`) on `app`, before authentication like /health. */
export function mountReadiness(app: Express, kernel: Kernel, draining: () => boolean): void {
  const readiness = new Readiness(kernel);
  const handler = (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    if (draining()) {
      unavailable(res, kernel, new ObjectQLError('SERVICE_UNAVAILABLE', 'The server is stopping'));
      return;
    }
    readiness.states().then(
      (checks) => {
        const down = checks.filter((c) => c.status === 'down');
        if (!down.length) {
          res.json({ status: 'ready', checks });
          return;
        }
        const names = down.map((c) => `${c.kind} '${c.name}' (${c.error})`).join(', ');
        unavailable(res, kernel, new ObjectQLError('SERVICE_UNAVAILABLE', `Not ready: ${names}`, { checks }));
      },
      (err: unknown) => kernel.http.sendError(req, res, err),
    );
  };
  app.get('/health/ready', handler);
  if (kernel.http.basePath) app.get(kernel.http.path('/health/ready'), handler);
}

function unavailable(res: Response, kernel: Kernel, error: ObjectQLError): void {
  res.setHeader('Retry-After', String(kernel.config.health.retryAfterSeconds));
  res.status(error.status).json(error.toBody());
}
