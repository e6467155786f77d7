/**
 * Bearer tokens: a JWT verified with jose against the configured key, allowed algorithms (never
 * `none`), issuer, audience, `exp` (required unless `requireExp: false`), `nbf` and `iat` (not in
 * the future) with a clock tolerance, then turned into the user context. Refusals carry a reason
 * in general terms; the token is never repeated.
 */
import { jwtVerify, type JWTVerifyOptions } from 'jose';
import type { Logger } from 'pino';
import { ObjectQLError, type User } from '../../kernel';
import { userFromClaims } from './claims';
import { verificationKey } from './jwt-key';
import type { JwtOptions } from './options';
import { CredentialRejected } from './rejection';

export interface JwtVerifier {
  /** What verifies tokens ('secret', 'publicKey', 'jwksUrl') and with which algorithms, for the start-up log. */
  readonly describe: { source: string; algorithms: string[] };
  /** The user of a valid token; throws CredentialRejected, or INTERNAL_ERROR when the signing keys cannot be had (logged on `log`). */
  verify(token: string, log: () => Logger): Promise<User>;
}

export function createJwtVerifier(jwt: JwtOptions): JwtVerifier {
  const { key, algorithms, source } = verificationKey(jwt);
  const options: JWTVerifyOptions = {
    algorithms,
    clockTolerance: jwt.clockTolerance,
    ...(jwt.requireExp ? { requiredClaims: ['exp'] } : {}),
    ...(jwt.issuer !== undefined ? { issuer: jwt.issuer } : {}),
    ...(jwt.audience !== undefined ? { audience: jwt.audience } : {}),
  };
  return {
    describe: { source, algorithms: [...algorithms] },
    async verify(token, log) {
      let payload: Record<string, unknown>;
      try {
        // One call per key kind keeps jose's overloads (a key or a key-getting function) typed.
        ({ payload } = typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options));
      } catch (err) {
        const rejection = toRejection(err);
        if (rejection instanceof ObjectQLError) log().error({ err }, 'Bearer token could not be verified');
        throw rejection;
      }
      // jose checks `iat` against the clock only with maxTokenAge; a token from the future would outlive its issuer's intent.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + jwt.clockTolerance) {
        throw new CredentialRejected('bearer', "issued in the future ('iat' claim)");
      }
      return userFromClaims(payload, jwt.idClaim, jwt.rolesClaim);
    },
  };
}

/** jose's error → a reason the caller may read; failures to fetch signing keys are the server's. */
function toRejection(err: unknown): Error {
  const { code, claim, reason } = (err ?? {}) as { code?: string; claim?: string; reason?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new CredentialRejected('bearer', 'expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'nbf') return new CredentialRejected('bearer', 'not yet valid');
      if (claim === 'iss') return new CredentialRejected('bearer', 'issuer not accepted');
      if (claim === 'aud') return new CredentialRejected('bearer', 'audience not accepted');
      if (claim === 'exp' && reason === 'missing') return new CredentialRejected('bearer', "it never expires (no 'exp' claim)");
      return new CredentialRejected('bearer', `its '${claim ?? 'unknown'}' claim is invalid`);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new CredentialRejected('bearer', 'bad signature');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return new CredentialRejected('bearer', 'algorithm not allowed');
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new CredentialRejected('bearer', 'no signing key matches it');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED':
    case 'ERR_JWK_INVALID':
      return new CredentialRejected('bearer', 'malformed token');
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
    default:
      // The JWKS could not be fetched or read, or something unexpected: not the caller's fault.
      return new ObjectQLError('INTERNAL_ERROR', 'Bearer token could not be verified: signing keys are unavailable');
  }
}
