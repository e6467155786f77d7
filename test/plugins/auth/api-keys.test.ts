/**
 * API keys end to end: hashed and plain keys identify their user, a wrong key is a 401 that does
 * not repeat it, a plain key is warned about outside development and tests, and the precedence
 * of the credential forms holds (a refused credential never falls through to another).
 */
import { expect } from 'chai';
import { createKernel } from '../../../server';
import { hashApiKey } from '../../../plugins/auth';
import { SAMPLE_METADATA, type TestServer } from '../../helpers/server';
import { bearer, expectUnauthorized, hs256, ids, list, SECRET, startAuthServer } from './helpers';

const CAROL_KEY = 'carol-key-0123456789abcdef';
const ALICE_KEY = 'alice-plain-key-0123456789';

describe('auth: API keys', () => {
  let s: TestServer;
  before(async () => {
    s = await startAuthServer({
      jwt: { secret: SECRET },
      apiKeys: [
        { keyHash: hashApiKey(CAROL_KEY), user: { id: 'carol', roles: ['manager'], team: 'ops' } },
        { key: ALICE_KEY, user: { id: 'alice', roles: ['member'] } },
      ],
    });
  });
  after(() => s?.stop());

  it('identifies the user of a hashed key', async () => {
    expect(ids(await list(s, 'project', { 'x-api-key': CAROL_KEY }))).to.deep.equal(['prj-apollo', 'prj-gemini', 'prj-mercury']);
  });

  it('identifies the user of a plain key, with that user’s permissions', async () => {
    expect(ids(await list(s, 'project', { 'x-api-key': ALICE_KEY }))).to.deep.equal(['prj-apollo', 'prj-mercury']);
    expect((await list(s, 'expense', { 'x-api-key': ALICE_KEY })).status).to.equal(403);
  });

  it('refuses a wrong key without repeating it', async () => {
    for (const wrong of ['wrong-key-0123456789abcdef', CAROL_KEY.toUpperCase(), CAROL_KEY.slice(0, -1), hashApiKey(CAROL_KEY)]) {
      const res = await list(s, 'project', { 'x-api-key': wrong });
      expectUnauthorized(res, 'API key rejected: unknown key', wrong);
      expect(res.body.error.details).to.deep.equal({ credential: 'apiKey', reason: 'unknown key' });
    }
  });

  it('takes the Authorization header first: a bad token is refused even beside a good key', async () => {
    const bad = `${await hs256()}x`;
    expectUnauthorized(await list(s, 'project', { ...bearer(bad), 'x-api-key': CAROL_KEY }), 'Bearer token rejected', bad, CAROL_KEY);
    // A good token beside a bad key: the token decides.
    expect(ids(await list(s, 'project', { ...bearer(await hs256()), 'x-api-key': 'whatever-0123456789abcdef' }))).to.deep.equal([
      'prj-apollo',
      'prj-mercury',
    ]);
  });

  it('refuses API keys when none are configured', async () => {
    const noKeys = await startAuthServer({ jwt: { secret: SECRET } });
    try {
      expectUnauthorized(
        await list(noKeys, 'project', { 'x-api-key': CAROL_KEY }),
        'API key rejected: this server accepts no API keys',
        CAROL_KEY,
      );
    } finally {
      await noKeys.stop();
    }
  });

  it('refuses malformed or duplicate keys in the options, naming them', async () => {
    const fail = (apiKeys: unknown) =>
      createKernel({ logLevel: 'silent', metadata: [SAMPLE_METADATA], plugins: { auth: { apiKeys } } }).then(
        () => 'no error',
        (e: Error) => e.message,
      );
    expect(await fail([{ keyHash: 'sha256:abc', user: { id: 'a', roles: [] } }])).to.equal(
      "Plugin 'auth': apiKeys[0].keyHash must be 'sha256:' followed by 64 hex digits (objectql hash-key <key>)",
    );
    expect(await fail([{ key: 'short', user: { id: 'a', roles: [] } }])).to.equal(
      "Plugin 'auth': apiKeys[0].key must be at least 16 characters long",
    );
    expect(await fail([{ key: CAROL_KEY, keyHash: hashApiKey(CAROL_KEY), user: { id: 'a', roles: [] } }])).to.equal(
      "Plugin 'auth': apiKeys[0] must set exactly one of keyHash or key",
    );
    expect(await fail([{ key: CAROL_KEY, user: { id: 'a' } }])).to.equal("Plugin 'auth': apiKeys[0].user.roles must be a list of strings");
    expect(
      await fail([
        { key: CAROL_KEY, user: { id: 'a', roles: [] } },
        { keyHash: hashApiKey(CAROL_KEY).toUpperCase().replace('SHA256', 'sha256'), user: { id: 'b', roles: [] } },
      ]),
    ).to.equal("Plugin 'auth': apiKeys[1] is the same key as apiKeys[0]");
  });

  describe('start-up warnings', () => {
    const saved = process.env.NODE_ENV;
    afterEach(() => {
      if (saved === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = saved;
    });

    /** The warnings logged while a server with these settings starts. */
    async function warnings(auth: Record<string, unknown>, allowBodyUser = false): Promise<string[]> {
      const kernel = await createKernel({
        port: 0,
        host: '127.0.0.1',
        logLevel: 'silent',
        metadata: [SAMPLE_METADATA],
        datasources: { default: { driver: 'memory' } },
        plugins: { rpc: true, auth },
        security: { allowBodyUser },
      });
      const seen: string[] = [];
      kernel.logger.warn = (msg: unknown) => void seen.push(String(msg));
      await kernel.start();
      await kernel.stop();
      return seen;
    }

    it('warns about plain keys and the body user outside development and tests, never showing a key', async () => {
      process.env.NODE_ENV = 'production';
      const seen = await warnings({ apiKeys: [{ key: ALICE_KEY, user: { id: 'alice', roles: [] } }] }, true);
      expect(seen).to.have.length(2);
      expect(seen[0]).to.include('1 API key(s) are configured in plain text').and.include('keyHash');
      expect(seen[1]).to.include('security.allowBodyUser is on');
      expect(seen.join()).not.to.include(ALICE_KEY);
    });

    it('stays quiet in development and tests, and about hashed keys', async () => {
      process.env.NODE_ENV = 'development';
      expect(await warnings({ apiKeys: [{ key: ALICE_KEY, user: { id: 'alice', roles: [] } }] }, true)).to.deep.equal([]);
      process.env.NODE_ENV = 'production';
      expect(await warnings({ apiKeys: [{ keyHash: hashApiKey(ALICE_KEY), user: { id: 'alice', roles: [] } }] })).to.deep.equal([]);
    });
  });
});
