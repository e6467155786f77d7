/**
 * Keeping Redis passwords out of log lines and error messages: a URL with its password masked, and
 * an ioredis error reduced to what a log line needs. ioredis attaches the failed command to its
 * errors, arguments included — for the AUTH or HELLO sent on connecting, the password.
 */

const MASK = '***';

/**
 * `url` with every password in it replaced by ***: the userinfo's, and query parameters such as
 * `?password=` or `?sentinelPassword=` (ioredis reads its options from the query too). What cannot
 * be taken apart safely — no `scheme://`, or a URL that does not parse — is masked after its scheme.
 */
export function redactRedisUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0];
  if (!scheme || !URL.canParse(url)) return (scheme ?? '') + MASK;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = MASK;
  for (const name of [...parsed.searchParams.keys()]) if (/pass/i.test(name)) parsed.searchParams.set(name, MASK);
  return parsed.href;
}

/** An ioredis error for a log line: name, message and code, without the command (and its arguments) it carries. */
export interface LoggableRedisError {
  type: string;
  message: string;
  code?: string;
}

export function loggableRedisError(err: unknown): LoggableRedisError {
  if (!(err instanceof Error)) return { type: typeof err, message: String(err) };
  const code = (err as { code?: unknown }).code;
  return { type: err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}) };
}
