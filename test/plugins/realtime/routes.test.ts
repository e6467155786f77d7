/**
 * Where the realtime WebSocket is served: its `path` option, under the instance's `basePath`,
 * with a real `ws` client — the upgrade, authentication and a change delivered there, the old
 * path refused, the discovery route saying where it is. A malformed path is refused naming it.
 */
import { expect } from 'chai';
import { createKernel, type ObjectQLConfig } from '../../../server';
import { SAMPLE_METADATA, startServer, USERS, type TestServer } from '../../helpers/server';
import { Client, SECRET, token, wsUrl } from './helpers';

describe('realtime plugin: routes', () => {
  const servers: TestServer[] = [];
  const clients: Client[] = [];
  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.map((s) => s.stop()));
  });

  async function start(config: ObjectQLConfig): Promise<TestServer> {
    const s = await startServer(config);
    servers.push(s);
    return s;
  }

  /** The status an upgrade to `path` is refused with (undefined when it opens). */
  async function refusal(s: TestServer, path: string): Promise<number | undefined> {
    try {
      clients.push(await Client.open(wsUrl(s.url, path)));
      return undefined;
    } catch (err) {
      return (err as { status?: number }).status;
    }
  }

  for (const [realtime, path] of [
    [true, '/v2/api/realtime'],
    [{ path: '/live/' }, '/v2/live'],
  ] as const) {
    it(`under basePath /v2 serves ${path} (${JSON.stringify(realtime)})`, async () => {
      const s = await start({ basePath: '/v2', plugins: { realtime, auth: { jwt: { secret: SECRET } } } });
      const c = await Client.open(wsUrl(s.url, path));
      clients.push(c);
      expect(await c.request({ type: 'auth', id: 'a', token: token(USERS.carol) })).to.deep.include({ type: 'ack', id: 'a' });
      expect(await c.request({ type: 'subscribe', id: 'p', object: 'project' })).to.deep.equal({ type: 'ack', id: 'p', object: 'project' });
      const created = await s.kernel.engine.repo('project', { user: USERS.carol }).create({ name: `RT ${path} ${process.pid}`, budget: 7 });
      const change = await c.next((m) => m.type === 'change' && m.subscription === 'p');
      expect(change).to.deep.include({ object: 'project', operation: 'created' });
      expect(change.record).to.include({ id: created.id, budget: 7 });

      expect(await refusal(s, path.slice('/v2'.length))).to.equal(404);
      const discovery = (await s.request('GET', '/v2/.well-known/objectql')).body;
      expect(discovery.capabilities.find((x: { plugin: string }) => x.plugin === 'realtime')).to.deep.include({ routes: [path] });
    });
  }

  it('refuses a malformed path option, naming it', async () => {
    for (const [path, message] of [
      ['live', /Plugin 'realtime': path must be a path of plain segments/],
      ['/a?b', /path must be a path of plain segments/],
    ] as const) {
      const err = await createKernel({ logLevel: 'silent', metadata: [SAMPLE_METADATA], plugins: { realtime: { path } } }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, path).to.match(message);
    }
  });
});
