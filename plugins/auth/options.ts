/**
 * The auth plugin's options (`plugins.auth` in the config), checked with zod when the plugin is
 * created; a wrong value stops start-up with a message naming its key. Pure: no I/O.
 */
import { z } from 'zod';
import { parsePluginOptions, PluginError } from '../../kernel';

export const JWS_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;
export type JwsAlgorithm = (typeof JWS_ALGORITHMS)[number];

const nonEmpty = (what: string) => z.string({ error: `must be ${what}` }).min(1, `must be ${what}`);
const stringOrList = (what: string) =>
  z.union([nonEmpty(what), z.array(nonEmpty(what), { error: `must be ${what} or a list of them` }).min(1, 'must not be an empty list')], {
    error: `must be ${what} or a list of them`,
  });
const roles = z.array(z.string({ error: 'must be a list of strings' }), { error: 'must be a list of strings' });

const jwtSchema = z
  .strictObject(
    {
      secret: z.string({ error: 'must be a string' }).min(32, 'must be at least 32 characters (256 bits) long').optional(),
      publicKey: z
        .string({ error: 'must be a PEM public key (-----BEGIN PUBLIC KEY-----)' })
        .includes('-----BEGIN PUBLIC KEY-----', { error: 'must be a PEM public key (-----BEGIN PUBLIC KEY-----)' })
        .optional(),
      jwksUrl: z
        .string({ error: 'must be an http(s) URL' })
        .refine((u) => URL.canParse(u) && ['http:', 'https:'].includes(new URL(u).protocol), 'must be an http(s) URL')
        .optional(),
      algorithms: z
        .array(z.enum(JWS_ALGORITHMS, { error: `must list algorithms among ${JWS_ALGORITHMS.join(', ')}` }), {
          error: 'must be a list of algorithms',
        })
        .min(1, 'must list at least one algorithm')
        .optional(),
      issuer: stringOrList('a non-empty string').optional(),
      audience: stringOrList('a non-empty string').optional(),
      clockTolerance: z
        .number({ error: 'must be a number of seconds' })
        .int('must be a whole number of seconds')
        .min(0, 'must not be negative')
        .max(3600, 'must be at most 3600 seconds')
        .default(30),
      /** Refuse tokens without an `exp` claim: one that never expires is a credential forever. */
      requireExp: z.boolean({ error: 'must be true or false' }).default(true),
      idClaim: nonEmpty('a claim name').default('sub'),
      rolesClaim: nonEmpty('a claim name or a dotted path such as realm_access.roles').default('roles'),
    },
    { error: 'must be an object {secret | publicKey | jwksUrl, ...}' },
  )
  .superRefine((jwt, ctx) => {
    const given = (['secret', 'publicKey', 'jwksUrl'] as const).filter((k) => jwt[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `must set exactly one of secret, publicKey or jwksUrl${given.length ? ` (got ${given.join(' and ')})` : ''}`,
      });
    }
    const hmac = jwt.algorithms?.filter((a) => a.startsWith('HS')) ?? [];
    if (jwt.secret !== undefined && jwt.algorithms && hmac.length !== jwt.algorithms.length) {
      ctx.addIssue({ code: 'custom', path: ['algorithms'], message: 'must be HMAC algorithms (HS256, HS384, HS512) with a secret' });
    }
    if (jwt.secret === undefined && hmac.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['algorithms'],
        message: `must not include ${hmac.join(', ')}: HMAC needs a secret, not a public key`,
      });
    }
  });

const userSchema = z.looseObject({ id: nonEmpty('a non-empty string'), roles }, { error: 'must be an object {id, roles, ...}' });

const apiKeySchema = z
  .strictObject(
    {
      key: z.string({ error: 'must be a string' }).min(16, 'must be at least 16 characters long').optional(),
      keyHash: z
        .string({ error: "must be 'sha256:' followed by 64 hex digits" })
        .regex(/^sha256:[0-9a-fA-F]{64}$/, "must be 'sha256:' followed by 64 hex digits (objectql hash-key <key>)")
        .optional(),
      user: userSchema,
    },
    { error: 'must be an object {keyHash | key, user}' },
  )
  .superRefine((entry, ctx) => {
    if ((entry.key === undefined) === (entry.keyHash === undefined))
      ctx.addIssue({ code: 'custom', path: [], message: 'must set exactly one of keyHash or key' });
  });

// Plain path segments only, like the kernel's route prefixes.
const routePath = z
  .string({ error: 'must be a path such as "/api/auth"' })
  .regex(/^(\/[A-Za-z0-9._~-]+)+\/*$/, 'must be a path of plain segments starting with "/", such as "/api/auth"')
  .transform((p) => p.replace(/\/+$/, ''));

const redisStoreSchema = z.strictObject(
  {
    redis: z.strictObject(
      {
        url: z.string({ error: 'must be a redis:// or rediss:// URL' }).regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'),
        keyPrefix: nonEmpty('a non-empty string').default('objectql:auth:'),
      },
      { error: 'must be an object {url, keyPrefix?}' },
    ),
  },
  { error: "must be 'memory' or {redis: {url, keyPrefix?}}" },
);

const sessionsSchema = z.preprocess(
  (v) => (v === true ? {} : v),
  z.strictObject(
    {
      store: z
        .union([z.literal('memory'), redisStoreSchema], { error: "must be 'memory' or {redis: {url, keyPrefix?}}" })
        .default('memory'),
      ttlSeconds: z
        .number({ error: 'must be a number of seconds' })
        .int('must be a whole number of seconds')
        .positive('must be positive')
        .default(8 * 3600),
      cookie: z
        .strictObject(
          {
            sameSite: z.enum(['lax', 'strict'], { error: "must be 'lax' or 'strict'" }).default('lax'),
            secure: z.union([z.boolean(), z.literal('auto')], { error: "must be true, false or 'auto'" }).default('auto'),
          },
          { error: "must be an object {sameSite?, secure?} (the cookie's name is always session_id)" },
        )
        .default({ sameSite: 'lax', secure: 'auto' }),
      path: routePath.default('/api/auth'),
    },
    { error: 'must be true or an object {store?, ttlSeconds?, cookie?, path?}' },
  ),
);

export const authOptionsSchema = z.strictObject({
  jwt: jwtSchema.optional(),
  apiKeys: z.array(apiKeySchema, { error: 'must be a list of {keyHash | key, user}' }).optional(),
  sessions: sessionsSchema.optional(),
  required: z.boolean({ error: 'must be true or false' }).default(true),
  anonymous: z.strictObject({ roles }, { error: 'must be an object {roles: string[]}' }).optional(),
});

export type AuthOptions = z.input<typeof authOptionsSchema>;
export type ResolvedAuthOptions = z.output<typeof authOptionsSchema>;
export type JwtOptions = NonNullable<ResolvedAuthOptions['jwt']>;
export type ApiKeyOption = NonNullable<ResolvedAuthOptions['apiKeys']>[number];
export type SessionOptions = NonNullable<ResolvedAuthOptions['sessions']>;

/** Settings that belong to the top-level `security` block, where the engine and the RPC plugin read them. */
const MISPLACED = ['adminRoles', 'allowBodyUser'];

export function parseAuthOptions(input: unknown): ResolvedAuthOptions {
  const options = input === true || input === undefined ? {} : input;
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
    const misplaced = MISPLACED.find((k) => k in options);
    if (misplaced)
      throw new PluginError(`Plugin 'auth': ${misplaced} is not an auth option; set security.${misplaced} at the top level of the config`);
  }
  return parsePluginOptions('auth', authOptionsSchema, options);
}
