/**
 * Development-only settings. "Development" is known from NODE_ENV alone: `development` or `test`.
 * Anything else, unset included, is treated as a deployment, so a forgotten NODE_ENV never
 * lowers a guard.
 */
import { PluginError } from '../../kernel';
import type { JwtOptions } from './options';

/**
 * The sample config's fallback JWT secret (objectql.config.ts, when OBJECTQL_JWT_SECRET is not set).
 * It is published with the code, so anyone can sign tokens with it for any user and role.
 */
export const DEVELOPMENT_JWT_SECRET = 'development-secret-change-me-0123456789';

export function isDevelopment(env: string | undefined = process.env.NODE_ENV): boolean {
  return env === 'development' || env === 'test';
}

/** How NODE_ENV reads in a message. */
export function describeEnv(env: string | undefined = process.env.NODE_ENV): string {
  return `NODE_ENV is ${env ? `'${env}'` : 'not set'}`;
}

const RISK =
  'jwt.secret is the public development secret (the sample config falls back to it when OBJECTQL_JWT_SECRET is not set): ' +
  'anyone can sign Bearer tokens with it for any user and any role, admin included';
const FIX = 'set OBJECTQL_JWT_SECRET (or jwt.secret) to a secret of your own, at least 32 random characters';

export function usesDevelopmentSecret(jwt: JwtOptions | undefined): boolean {
  return jwt?.secret === DEVELOPMENT_JWT_SECRET;
}

/** Refuses the development secret outside development: start-up stops with what to do. */
export function refuseDevelopmentSecret(jwt: JwtOptions | undefined, env: string | undefined = process.env.NODE_ENV): void {
  if (!usesDevelopmentSecret(jwt) || isDevelopment(env)) return;
  throw new PluginError(
    `Plugin 'auth': ${RISK}. It is refused because ${describeEnv(env)} (it is allowed only when NODE_ENV is development or test): ${FIX}`,
  );
}

/** The start-up warning while the development secret is in use (in development: elsewhere it is refused). */
export const DEVELOPMENT_SECRET_WARNING = `auth: ${RISK}. Development only (refused unless NODE_ENV is development or test): ${FIX}`;
