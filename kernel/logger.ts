import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Keys whose values never reach the log, at the top of a logged object or one or two levels down
 * (`req.headers.authorization`, `user.password`, `err.token`): credentials in headers, and secrets
 * in objects a plugin logs. Matching is by exact key.
 */
export const REDACTED_KEYS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'password',
  'passwd',
  'secret',
  'clientSecret',
  'client_secret',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'apiKey',
  'api_key',
  'keyHash',
  'key_hash',
  'sessionId',
  'session_id',
];

export const REDACT_CENSOR = '[redacted]';

/** The pino redaction paths of REDACTED_KEYS (a key with a '-' in brackets). */
export function redactPaths(keys: readonly string[] = REDACTED_KEYS): string[] {
  const at = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `["${k}"]`);
  return keys.flatMap((k) => [at(k).replace(/^\./, ''), `*${at(k)}`, `*.*${at(k)}`]);
}

/** The kernel's logger; `destination` (default stdout) lets a test or an application capture the lines. */
/** `bindings`: fields on every line (KernelOptions.logBindings). */
export function createLogger(level: string, destination?: DestinationStream, bindings?: Record<string, unknown>): Logger {
  // Credentials never reach the log, whatever a plugin logs.
  const options = { level, redact: { paths: redactPaths(), censor: REDACT_CENSOR } };
  const logger = destination ? pino(options, destination) : pino(options);
  return bindings ? logger.child(bindings) : logger;
}

/**
 * A child logger made on first use: most requests never log, and pino's child (its bindings pass
 * through the redaction) costs ~2% of a small request. It stands for the child in every way, so
 * it can be copied along with the context that holds it.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  return new Proxy(parent, {
    get(_parent, key) {
      child ??= parent.child(bindings);
      const value: unknown = Reflect.get(child, key, child);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(child) : value;
    },
  });
}
export type { DestinationStream, Logger };
