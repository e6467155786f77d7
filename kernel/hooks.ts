/**
 * Every hook of the kernel, declared in one place. Plugins tap them by name; each tap carries the
 * plugin's name, and a failure inside a tap is rethrown as a HookError naming the hook and the tap.
 * Plugins that offer hooks of their own own them; this object does not grow for them.
 */
import { AsyncSeriesBailHook, AsyncSeriesHook, HookMap, SyncHook, SyncWaterfallHook } from 'tapable';
import type { Router } from 'express';
import type { Request, Response } from 'express';
import type { ResolvedConfig } from './config/schema';
import type { Datasource, Transaction } from './drivers';
import type { AuthRequest } from './http/auth-request';
import type { UpgradeAdmission } from './http/upgrade-admission';
import type { User } from './context';
import type { HookContext, RecordChange } from './engine/types';
import { isErrorCode } from './errors';
import type { MetadataChange } from './metadata/registry';
import type { OpenAPIDocument } from './protocol/openapi';
import type { ReadinessCheck } from './http/readiness';
import type { HttpOutcome, OperationOutcome } from './outcomes';

/** What a plugin serves, listed at the discovery route. */
export interface Capability {
  plugin: string;
  protocol?: string;
  routes?: string[];
  [key: string]: unknown;
}

export type DataHook = AsyncSeriesHook<[HookContext]>;

function dataHookMap(event: string): HookMap<DataHook> {
  return new HookMap(() => new AsyncSeriesHook<[HookContext]>(['ctx'], event), event);
}

export function createHooks() {
  const hooks = {
    /**
     * After every plugin has registered, before metadata loads. Plugins read settings here; a
     * change to `routes` is too late (plugins read their prefix in register).
     */
    configure: new AsyncSeriesHook<[ResolvedConfig]>(['config'], 'configure'),
    /** Connect, sync, open resources. Runs in dependency order. */
    start: new AsyncSeriesHook<[]>([], 'start'),
    /**
     * Mount HTTP routes that serve no data and need no identity (API documents, docs pages). They
     * run before authentication and the `request` hook: no credentials asked, no rate limit.
     */
    publicRoutes: new AsyncSeriesHook<[Router]>(['router'], 'publicRoutes'),
    /** Mount HTTP routes on the kernel's router; they run after authentication and the `request` hook. */
    routes: new AsyncSeriesHook<[Router]>(['router'], 'routes'),
    /** Everything started and listening. */
    ready: new AsyncSeriesHook<[]>([], 'ready'),
    /** While stopping, after HTTP has drained and before plugins' own stop() (which run in reverse order). Taps run in tap order. */
    stop: new AsyncSeriesHook<[]>([], 'stop'),

    /**
     * Identity, on every transport (HTTP requests, WebSocket upgrades and credentials sent over a
     * socket; see http/auth-request.ts): the first tap that returns a user wins; none means
     * anonymous. A tap throws UNAUTHORIZED for credentials that are present but wrong (or absent
     * where required).
     */
    authenticate: new AsyncSeriesBailHook<[AuthRequest], User | undefined>(['request'], 'authenticate'),
    /**
     * Every request to a non-public route, after `authenticate` (whether it succeeded or not:
     * `req.objectql.user` is then undefined) and before the route. A tap may set headers or throw
     * (rate limiting taps here); an authentication failure is sent after this hook has run.
     */
    request: new AsyncSeriesHook<[Request, Response]>(['req', 'res'], 'request'),
    /**
     * The `request` hook of WebSockets: every upgrade request, before its handler (after the Origin
     * check), and every credential presented over an open socket (graphql-ws connection_init,
     * realtime `auth`), after `authenticate` judged it (`admission.user()`). A tap throws to refuse:
     * an upgrade is then answered over HTTP with the error (and the tap's `request.responseHeaders`),
     * a socket's credentials get the protocol's refusal. The rate limiter taps here.
     */
    upgrade: new AsyncSeriesHook<[UpgradeAdmission]>(['admission'], 'upgrade'),

    beforeFind: dataHookMap('beforeFind'),
    afterFind: dataHookMap('afterFind'),
    beforeCreate: dataHookMap('beforeCreate'),
    afterCreate: dataHookMap('afterCreate'),
    beforeUpdate: dataHookMap('beforeUpdate'),
    afterUpdate: dataHookMap('afterUpdate'),
    beforeDelete: dataHookMap('beforeDelete'),
    afterDelete: dataHookMap('afterDelete'),

    /**
     * Metadata changed at run time (the metadata API's label/description update); the registry's
     * `revision` has gone up. What is built from metadata is rebuilt from here, or when it sees
     * the revision move.
     */
    metadataChanged: new SyncHook<[MetadataChange]>(['change'], 'metadataChanged'),
    /**
     * Fires inside a write's transaction, right after the record was written: a tap may write to
     * the same datasource within `transaction.tx` (a transactional outbox), and what it throws
     * rolls the write back. Not called while nobody taps it.
     */
    recordChanging: new AsyncSeriesHook<[RecordChange, ChangeTransaction]>(['change', 'transaction'], 'recordChanging'),
    /** Fires after a write has committed; subscriptions and realtime listen here. */
    recordChanged: new AsyncSeriesHook<[RecordChange]>(['change'], 'recordChanged'),

    /**
     * Every HTTP response of the kernel's server, once sent (kernel/outcomes.ts). For observers: a
     * tap must be quick, and what it throws is logged, never answered.
     */
    responded: new SyncHook<[HttpOutcome]>(['outcome'], 'responded'),
    /** Every engine operation a caller ran, once settled (kernel/outcomes.ts). For observers, as `responded`. */
    operation: new SyncHook<[OperationOutcome]>(['outcome'], 'operation'),

    /** What each plugin serves, for the discovery route. */
    capabilities: new SyncWaterfallHook<[Capability[]]>(['capabilities'], 'capabilities'),
    /** The OpenAPI document: each protocol plugin adds its paths (see kernel/protocol/openapi.ts). */
    openapi: new SyncWaterfallHook<[OpenAPIDocument]>(['document'], 'openapi'),
    /** Dependencies besides the datasources that GET /health/ready checks (a plugin's Redis connection). */
    readiness: new SyncWaterfallHook<[ReadinessCheck[]]>(['checks'], 'readiness'),
  };
  for (const [name, hook] of Object.entries(hooks)) {
    if (hook instanceof HookMap) {
      hook.intercept({
        factory: (key, h) => {
          annotateFailures(h as unknown as InterceptableHook, `${name}[${String(key)}]`);
          return h;
        },
      });
    } else {
      annotateFailures(hook as unknown as InterceptableHook, name);
    }
  }
  return Object.freeze(hooks);
}

export type KernelHooks = ReturnType<typeof createHooks>;

/** The transaction a change is written in (`recordChanging`): its datasource, and the transaction to pass to it. */
export interface ChangeTransaction {
  datasource: Datasource;
  tx: Transaction;
}
export type DataHookName =
  'beforeFind' | 'afterFind' | 'beforeCreate' | 'afterCreate' | 'beforeUpdate' | 'afterUpdate' | 'beforeDelete' | 'afterDelete';

/** A failure inside a tap, naming the hook and the tap (plugin or metadata file). */
export class HookError extends Error {
  constructor(
    readonly hook: string,
    readonly tap: string,
    override readonly cause: unknown,
  ) {
    super(`Hook ${hook} failed in ${tap}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'HookError';
  }
}

interface InterceptableHook {
  intercept(i: { register: (tap: { name: string; type: string; fn: (...args: unknown[]) => unknown }) => unknown }): void;
}

/**
 * Wraps every tap so that an error thrown inside it names the hook and the tap. An error that
 * carries one of the spec's codes (docs/spec.md, "Errors") passes through untouched: it is meant for the client.
 */
function annotateFailures(hook: InterceptableHook, hookName: string): void {
  hook.intercept({
    register(tap) {
      if (tap.type !== 'promise' && tap.type !== 'sync') return tap;
      const fn = tap.fn;
      const wrap = (err: unknown) =>
        isErrorCode((err as { code?: unknown })?.code) || err instanceof HookError ? err : new HookError(hookName, tap.name, err);
      tap.fn =
        tap.type === 'promise'
          ? (...args: unknown[]) =>
              Promise.resolve()
                .then(() => fn(...args))
                .catch((err: unknown) => {
                  throw wrap(err);
                })
          : (...args: unknown[]) => {
              try {
                return fn(...args);
              } catch (err) {
                throw wrap(err);
              }
            };
      return tap;
    },
  });
}
