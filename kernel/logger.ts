import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    // Credentials never reach the log, whatever a plugin logs.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', '*.password', '*.token', '*.secret'], censor: '[redacted]' },
  });
}
export type { Logger };
