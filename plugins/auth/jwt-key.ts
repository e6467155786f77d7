/**
 * The key that verifies Bearer tokens and the algorithms it may be used with: an HMAC secret, a
 * PEM public key (algorithms inferred from the key unless given) or a remote JWKS. Checked when
 * the plugin is created; no I/O (a JWKS is fetched on the first token that needs it).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { PluginError } from '../../kernel';
import type { JwsAlgorithm, JwtOptions } from './options';

export interface VerificationKey {
  key: Uint8Array | KeyObject | JWTVerifyGetKey;
  algorithms: JwsAlgorithm[];
  /** 'secret', 'publicKey' or 'jwksUrl': what the log and capabilities say (never the key). */
  source: 'secret' | 'publicKey' | 'jwksUrl';
}

const RSA: JwsAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_CURVES: Record<string, JwsAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
/** Without `algorithms`, a JWKS accepts the two asymmetric algorithms most issuers use. */
const JWKS_DEFAULT: JwsAlgorithm[] = ['RS256', 'ES256'];

export function verificationKey(jwt: JwtOptions): VerificationKey {
  if (jwt.secret !== undefined) {
    return { key: new TextEncoder().encode(jwt.secret), algorithms: jwt.algorithms ?? ['HS256'], source: 'secret' };
  }
  if (jwt.publicKey !== undefined) {
    const key = parsePublicKey(jwt.publicKey);
    const fits = algorithmsFor(key);
    const algorithms = jwt.algorithms ?? [fits[0]];
    const misfit = algorithms.filter((a) => !fits.includes(a));
    if (misfit.length) {
      throw new PluginError(
        `Plugin 'auth': jwt.algorithms ${misfit.join(', ')} do not fit the ${describeKey(key)} in jwt.publicKey (it fits ${fits.join(', ')})`,
      );
    }
    return { key, algorithms, source: 'publicKey' };
  }
  // The options schema guarantees exactly one of the three.
  return { key: createRemoteJWKSet(new URL(jwt.jwksUrl!)), algorithms: jwt.algorithms ?? JWKS_DEFAULT, source: 'jwksUrl' };
}

function parsePublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new PluginError(
      `Plugin 'auth': jwt.publicKey must be a PEM public key (SPKI, -----BEGIN PUBLIC KEY-----): ${(err as Error).message}`,
    );
  }
  algorithmsFor(key);
  return key;
}

/** The JWS algorithms a public key can verify; the first is the default. */
function algorithmsFor(key: KeyObject): JwsAlgorithm[] {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return RSA;
  if (type === 'rsa-pss') return RSA.filter((a) => a.startsWith('PS'));
  if (type === 'ed25519') return ['EdDSA'];
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (type === 'ec' && curve && EC_CURVES[curve]) return [EC_CURVES[curve]];
  throw new PluginError(
    `Plugin 'auth': jwt.publicKey is a ${describeKey(key)}, which no supported algorithm verifies (use an RSA, P-256, P-384, P-521 or Ed25519 key)`,
  );
}

function describeKey(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return `${key.asymmetricKeyType ?? 'unknown'}${curve ? ` (${curve})` : ''} key`;
}
