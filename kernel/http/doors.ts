/**
 * The doors a running kernel serves, for people: the discovery data (each plugin's capability,
 * docs/design.md §2, and the spec's four route prefixes) read as pages a browser can open,
 * endpoints, route prefixes and WebSockets. The landing page (GET /) and the command line's
 * start-up banner show this one list. It never holds a credential: the authentication hint says
 * how to send one, not what it is.
 */
import type { Capability } from '../hooks';
import type { Kernel } from '../kernel';

/**
 * - page: a GET without parameters, which a browser can open
 * - endpoint: requests other than GET (`methods` says which)
 * - prefix: routes continue below it (`/api/data/{object}`)
 * - websocket: a WebSocket URL
 */
export type DoorUrlKind = 'page' | 'endpoint' | 'prefix' | 'websocket';

export interface DoorUrl {
  kind: DoorUrlKind;
  /** On the kernel's server, under the base path; on the door's own `port` when it has one. */
  path: string;
  methods?: string[];
  /** What the path is: the capability's key naming it (openapi's `docs`, OData's `metadata`), the route key of a prefix, or the kernel's name for it. */
  label?: string;
}

export interface Door {
  plugin: string;
  protocol?: string;
  /** A server of the plugin's own (its `port` option): its URLs are on that port. */
  port?: number;
  urls: DoorUrl[];
}

export interface AuthenticationHint {
  /** Whether a request without credentials is refused. */
  required: boolean;
  /** How to send each credential the server accepts, e.g. 'X-API-Key: <key>'. */
  send: string[];
  /** Where the credentials are configured (never what they are). */
  configuredIn: string;
}

/** GET / as JSON. */
export interface ServerDescription {
  name: 'objectql';
  basePath?: string;
  doors: Door[];
  /** In development only. */
  authentication?: AuthenticationHint;
}

export interface DescribeOptions {
  /** Adds the authentication hint (NODE_ENV=development). */
  development: boolean;
  /** Named in the authentication hint. */
  configFile?: string;
  /** The plugins' capabilities, when the caller already has them. */
  capabilities?: Capability[];
}

/** How each credential form a capability lists under `credentials` (the auth plugin's) is sent. */
const CREDENTIAL_FORMS: Readonly<Record<string, (capability: Capability) => string>> = {
  bearer: () => 'Authorization: Bearer <jwt>',
  apiKey: () => 'X-API-Key: <key>',
  session: (c) => `a session cookie${firstRoute(c, 'POST') ? ` from POST ${firstRoute(c, 'POST')} (with a token or key)` : ''}`,
  bodyUser: () => 'a "user" in the JSON-RPC body (security.allowBodyUser: development only)',
};

export function describeServer(kernel: Kernel, options: DescribeOptions): ServerDescription {
  const capabilities = options.capabilities ?? kernel.hooks.capabilities.call([]);
  const basePath = kernel.http.basePath;
  const authentication = options.development ? authenticationHint(capabilities, options.configFile) : undefined;
  return {
    name: 'objectql',
    ...(basePath ? { basePath } : {}),
    doors: listDoors(kernel, capabilities),
    ...(authentication ? { authentication } : {}),
  };
}

/** Every plugin that lists routes, then the kernel's own (health, readiness, discovery). */
export function listDoors(kernel: Kernel, capabilities: Capability[]): Door[] {
  const prefixes = Object.entries(kernel.http.routes);
  const doors = capabilities.flatMap((c) => {
    const door = doorOf(c, prefixes);
    return door ? [door] : [];
  });
  const kernelPage = (path: string, label: string): DoorUrl => ({ kind: 'page', path: kernel.http.path(path), methods: ['GET'], label });
  doors.push({
    plugin: 'kernel',
    protocol: 'http',
    urls: [kernelPage('/health', 'health'), kernelPage('/health/ready', 'readiness'), kernelPage('/.well-known/objectql', 'discovery')],
  });
  return doors;
}

/** Whether a plugin lists a GET at `path` (then it serves that path, not the kernel). */
export function servesGet(capabilities: Capability[], path: string): boolean {
  const wanted = withoutTrailingSlash(path);
  return capabilities.some((c) => (c.routes ?? []).some((r) => r.startsWith('GET ') && withoutTrailingSlash(r.slice(4).trim()) === wanted));
}

function doorOf(capability: Capability, prefixes: Array<[string, string]>): Door | undefined {
  const routes = (Array.isArray(capability.routes) ? capability.routes : []).filter((r): r is string => typeof r === 'string');
  if (!routes.length) return undefined;
  const byPath = new Map<string, string[]>();
  const templates: string[] = [];
  const urls: DoorUrl[] = [];
  for (const route of routes) {
    const { method, path } = parseRoute(route);
    if (isTemplate(path)) templates.push(path);
    else if (!method) urls.push({ kind: capability.protocol === 'websocket' ? 'websocket' : 'endpoint', path });
    else byPath.set(path, [...(byPath.get(path) ?? []), method]);
  }
  const labels = pathLabels(capability);
  for (const [path, methods] of byPath) {
    const label = labels.get(path);
    urls.push({ kind: methods.includes('GET') ? 'page' : 'endpoint', path, methods, ...(label ? { label } : {}) });
  }
  // graphql-ws: a capability that takes subscriptions takes them over a WebSocket at its endpoint.
  const endpoint = urls.find((u) => u.kind === 'page');
  if (capability.subscriptions === true && endpoint) urls.push({ kind: 'websocket', path: endpoint.path, label: 'subscriptions' });
  const prefix = templatePrefix(templates, prefixes);
  if (prefix && !urls.some((u) => u.path === prefix.path)) urls.push({ kind: 'prefix', ...prefix });
  const port = typeof capability.port === 'number' ? capability.port : undefined;
  return {
    plugin: String(capability.plugin),
    ...(typeof capability.protocol === 'string' ? { protocol: capability.protocol } : {}),
    ...(port !== undefined ? { port } : {}),
    urls,
  };
}

/** 'GET /api/x' → method and path; a route without a method ('/api/realtime') is a path alone. */
function parseRoute(route: string): { method?: string; path: string } {
  const match = /^([A-Z]+)\s+(\S+)$/.exec(route.trim());
  return match ? { method: match[1], path: match[2] } : { path: route.trim() };
}

/** A path with parameters: express's `:name` or the OpenAPI/OData `{Name}`. */
function isTemplate(path: string): boolean {
  return path.includes('/:') || path.includes('{');
}

/** Keys of a capability that hold a path but name no page of it (OData's `basePath` is its root). */
const NOT_LABELS = new Set(['plugin', 'protocol', 'basePath', 'url']);

/** The capability's own keys naming a path (`docs: '/api/objectql/docs'`), by path. */
function pathLabels(capability: Capability): Map<string, string> {
  const labels = new Map<string, string>();
  for (const [key, value] of Object.entries(capability)) {
    if (!NOT_LABELS.has(key) && typeof value === 'string' && value.startsWith('/') && !labels.has(value)) labels.set(value, key);
  }
  return labels;
}

/** Where the routes with parameters start: the spec's route prefix holding them all (`routes.data`), else their common leading segments. */
function templatePrefix(templates: string[], prefixes: Array<[string, string]>): { path: string; label?: string } | undefined {
  if (!templates.length) return undefined;
  const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  const route = prefixes.find(([, prefix]) => templates.every((t) => under(t, prefix)));
  if (route) return { path: route[1], label: `routes.${route[0]}` };
  const statics = templates.map((t) => {
    const segments = t.split('/');
    const firstParameter = segments.findIndex((s) => s.includes(':') || s.includes('{'));
    return segments.slice(0, firstParameter);
  });
  const common: string[] = [];
  for (let i = 0; statics.every((s) => i < s.length && s[i] === statics[0][i]); i++) common.push(statics[0][i]);
  const path = common.join('/');
  return path ? { path } : undefined;
}

function authenticationHint(capabilities: Capability[], configFile: string | undefined): AuthenticationHint | undefined {
  const accepting = capabilities.filter((c) => Array.isArray(c.credentials) && c.credentials.length);
  if (!accepting.length) return undefined;
  const send = accepting.flatMap((c) =>
    (c.credentials as unknown[]).map((form) => {
      const describe = typeof form === 'string' ? CREDENTIAL_FORMS[form] : undefined;
      return describe ? describe(c) : String(form);
    }),
  );
  const plugins = accepting.map((c) => `'${String(c.plugin)}'`).join(' and ');
  return {
    required: accepting.some((c) => c.required === true),
    send,
    configuredIn: `the options of plugin ${plugins} in ${configFile ?? 'the config file'}`,
  };
}

function firstRoute(capability: Capability, method: string): string | undefined {
  const route = (capability.routes ?? []).find((r) => r.startsWith(`${method} `));
  return route?.slice(method.length + 1).trim();
}

function withoutTrailingSlash(path: string): string {
  return path.replace(/\/+$/, '') || '/';
}

/**
 * A door's URL in full on the server at `origin` ('http://127.0.0.1:3000'): ws:// (wss://) for a
 * WebSocket, the door's own port when it has one.
 */
export function absoluteUrl(origin: string, door: Door, url: DoorUrl): string {
  const at = new URL(origin);
  if (door.port !== undefined) at.port = String(door.port);
  if (url.kind === 'websocket') at.protocol = at.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${at.protocol}//${at.host}${url.path}`;
}
