/**
 * The metrics of one kernel, in a prom-client Registry of its own (never prom-client's global
 * one: two kernels in one process count apart). Every label takes its values from a bounded set:
 * route patterns and doors from the code, objects and operations from the metadata, status codes.
 */
import { METHODS } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Datasource, HttpOutcome, OperationOutcome } from '../../kernel';
import type { MetricsSettings } from './options';

const KNOWN_METHODS = new Set(METHODS);

export interface Sources {
  /** The door a route pattern or path belongs to (doors.ts). */
  door(path: string): string;
  datasources(): Array<[string, Datasource]>;
  /** WebSocket connections and subscriptions held now, when a WebSocket protocol runs. */
  webSockets(): { connections: number; subscriptions: number } | undefined;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter;
  private readonly requestSeconds: Histogram;
  private readonly refusals: Counter;
  private readonly operations: Counter;
  private readonly operationSeconds: Histogram;
  private readonly door: (path: string) => string;

  constructor(settings: MetricsSettings, sources: Sources) {
    const { prefix, buckets } = settings;
    const registers = [this.registry];
    const http = ['protocol', 'route', 'method', 'status'];
    this.requests = new Counter({ name: `${prefix}http_requests_total`, help: 'HTTP requests answered', labelNames: http, registers });
    this.requestSeconds = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'Time from a request to its response sent',
      labelNames: http,
      buckets,
      registers,
    });
    this.refusals = new Counter({
      name: `${prefix}rate_limit_refusals_total`,
      help: 'Requests refused by a rate limit (429)',
      labelNames: ['protocol'],
      registers,
    });
    this.operations = new Counter({
      name: `${prefix}engine_operations_total`,
      help: 'Data operations run through the engine, by outcome (ok or the error code)',
      labelNames: ['object', 'operation', 'outcome'],
      registers,
    });
    this.operationSeconds = new Histogram({
      name: `${prefix}engine_operation_duration_seconds`,
      help: 'Time an engine operation took: checks, hooks and the datasource',
      labelNames: ['object', 'operation'],
      buckets,
      registers,
    });
    new Gauge({
      name: `${prefix}datasource_pool_connections`,
      help: "Connections of a datasource's pool: used, free, and callers waiting (pending)",
      labelNames: ['datasource', 'state'],
      registers,
      collect() {
        this.reset();
        for (const [name, datasource] of sources.datasources()) {
          const stats = datasource.poolStats?.();
          if (!stats) continue;
          this.set({ datasource: name, state: 'used' }, stats.used);
          this.set({ datasource: name, state: 'free' }, stats.free);
          this.set({ datasource: name, state: 'pending' }, stats.pending);
        }
      },
    });
    new Gauge({
      name: `${prefix}datasource_pool_max`,
      help: "The most connections a datasource's pool opens",
      labelNames: ['datasource'],
      registers,
      collect() {
        this.reset();
        for (const [name, datasource] of sources.datasources()) {
          const stats = datasource.poolStats?.();
          if (stats) this.set({ datasource: name }, stats.max);
        }
      },
    });
    new Gauge({
      name: `${prefix}websocket_connections`,
      help: 'WebSocket connections open (realtime and GraphQL subscriptions)',
      registers,
      collect() {
        this.set(sources.webSockets()?.connections ?? 0);
      },
    });
    new Gauge({
      name: `${prefix}subscriptions`,
      help: 'Subscriptions held over WebSockets (realtime and GraphQL)',
      registers,
      collect() {
        this.set(sources.webSockets()?.subscriptions ?? 0);
      },
    });
    if (settings.processMetrics) collectDefaultMetrics({ register: this.registry, prefix });
    this.door = (path) => sources.door(path);
  }

  responded(outcome: HttpOutcome): void {
    const protocol = this.door(outcome.route ?? outcome.path);
    const labels = {
      protocol,
      route: outcome.route ?? '(none)',
      method: KNOWN_METHODS.has(outcome.method) ? outcome.method : 'OTHER',
      status: String(outcome.status),
    };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, outcome.seconds);
    if (outcome.status === 429) this.refusals.inc({ protocol });
  }

  operation(outcome: OperationOutcome): void {
    this.operations.inc({ object: outcome.object, operation: outcome.operation, outcome: outcome.outcome });
    this.operationSeconds.observe({ object: outcome.object, operation: outcome.operation }, outcome.seconds);
  }
}
