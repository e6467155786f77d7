/**
 * The deliveries admin API on a real server (SQLite): list, retry a dead delivery (it then runs),
 * discard, parameters and ids checked, admins only.
 */
import { expect } from 'chai';
import type { Datasource, Plugin } from '../../../kernel';
import { deliveryTables, mountDeliveryRoutes, startDispatcher, type Dispatcher } from '../../../plugins/events/delivery';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { openNamespace, type Namespace } from '../../drivers/sql/helpers';
import { all, delivery, enqueue, fakeRunner, until, workflow, type Call } from './delivery-helpers';

const ADMIN = { id: 'root', roles: ['admin'] };
const MEMBER = { id: 'alice', roles: ['member'] };
const PATH = '/api/events/deliveries';

describe('events deliveries: admin API', function () {
  let ns: Namespace;
  let server: TestServer;
  let ds: Datasource;
  const calls: Call[] = [];
  // k-dead fails its only try (maxAttempts 1), then succeeds when retried.
  const failures = new Map([['k-dead', 1]]);

  before(async () => {
    ns = await openNamespace('sqlite');
    let dispatcher: Dispatcher | undefined;
    const plugin: Plugin = {
      name: 'test-deliveries',
      register(kernel) {
        kernel.hooks.routes.tap('test-deliveries', (router) => {
          mountDeliveryRoutes(router, kernel, kernel.http.path(PATH), [ds], () => dispatcher?.wake());
        });
        this.start = async () => {
          ds = kernel.resolve('datasources').get('default');
          await ds.syncSchema(deliveryTables('default'));
          dispatcher = startDispatcher({
            kernel,
            datasources: [ds],
            workflows: new Map([['w', workflow('w', { maxAttempts: 1, initialDelayMs: 10, maxDelayMs: 10 })]]),
            runner: fakeRunner('a', calls, failures),
            // A slow poll: the retry runs because the route wakes the dispatcher.
            settings: { pollMs: 60_000, batch: 10, leaseSeconds: 30, concurrency: 2 },
            instanceId: 'a',
          });
        };
        this.stop = () => dispatcher?.stop() ?? Promise.resolve();
      },
    };
    server = await startServer({ datasources: { default: ns.config() }, metadata: [] }, { identityFromHeader: true, use: [plugin] });
  });
  after(async () => {
    await server?.stop();
    await ns?.drop();
  });

  const get = (query = '', user: object | null = ADMIN) => server.request('GET', `${PATH}${query}`, undefined, identityHeader(user));
  const post = (id: string, what: string, user: object | null = ADMIN) =>
    server.request('POST', `${PATH}/${encodeURIComponent(id)}/${what}`, undefined, identityHeader(user));

  it('lists, retries a dead delivery (which then runs) and discards', async () => {
    await enqueue(ds, [delivery('w', 'k-dead', 1), delivery('w', 'k-ok', 2)]);
    // Not run yet: the poll is slow and nothing woke the dispatcher.
    const pending = await get('?status=pending');
    expect(pending.status).to.equal(200);
    expect(pending.body.items.map((i: { id: string }) => i.id).sort()).to.deep.equal(['default:1:w:0', 'default:2:w:0']);
    expect(pending.body.items[0]).to.have.keys(
      'id',
      'workflow',
      'action',
      'status',
      'attempts',
      'next_at',
      'last_error',
      'created_at',
      'updated_at',
      'event',
    );
    expect(pending.body.items.find((i: { id: string }) => i.id === 'default:1:w:0').event).to.deep.equal({
      position: 1,
      object: 'task',
      id: 'k-dead',
      operation: 'created',
    });

    // A retry of something not dead is refused; the retry of the dead one wakes the dispatcher.
    expect((await post('default:1:w:0', 'retry')).status).to.equal(409);
    const discarded = await post('default:2:w:0', 'discard');
    expect(discarded.status).to.equal(200);
    expect(discarded.body).to.include({ id: 'default:2:w:0', status: 'discarded' });

    // Something else wakes it (the next retry below does too): run the first try now.
    await post('default:2:w:0', 'retry'); // discarded → pending again, and a pass
    await until('dead', async () => (await all(ds)).find((d) => d.id === 'default:1:w:0')?.status === 'dead');
    await until('k-ok done', async () => (await all(ds)).find((d) => d.id === 'default:2:w:0')?.status === 'done');
    const dead = await get('?status=dead&workflow=w');
    expect(dead.body.items).to.have.length(1);
    expect(dead.body.items[0]).to.include({ id: 'default:1:w:0', attempts: 1, last_error: 'endpoint answered 503 for default:1:w:0' });

    const retried = await post('default:1:w:0', 'retry');
    expect(retried.status).to.equal(200);
    expect(retried.body).to.include({ status: 'pending', attempts: 0 });
    await until('retried done', async () => (await all(ds)).find((d) => d.id === 'default:1:w:0')?.status === 'done');
    expect(calls.filter((c) => c.id === 'default:1:w:0').map((c) => c.ok)).to.deep.equal([false, true]);
  });

  it('pages newest first with a cursor', async () => {
    // Discarded at once: nothing runs them.
    await enqueue(ds, [delivery('w', 'p', 10), delivery('w', 'p', 11), delivery('w', 'p', 12)]);
    for (const p of [10, 11, 12]) expect((await post(`default:${p}:w:0`, 'discard')).status).to.equal(200);
    const seen: string[] = [];
    const times: string[] = [];
    let next: string | null = null;
    do {
      const page = await get(`?limit=2${next ? `&after=${next}` : ''}`);
      expect(page.status).to.equal(200);
      expect(page.body.items.length).to.be.at.most(2);
      seen.push(...page.body.items.map((i: { id: string }) => i.id));
      times.push(...page.body.items.map((i: { created_at: string }) => i.created_at));
      next = page.body.next;
    } while (next);
    expect(seen).to.have.length(5);
    expect(new Set(seen).size).to.equal(5);
    expect(times).to.deep.equal([...times].sort().reverse());
  });

  it('answers 404 for an unknown id and 400 naming a bad parameter', async () => {
    const missing = await post('nope', 'retry');
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('NOT_FOUND');
    const badLimit = await get('?limit=zero');
    expect(badLimit.status).to.equal(400);
    expect(badLimit.body.error.message).to.contain("'limit'");
    expect((await get('?status=maybe')).body.error.message).to.contain("'status'");
  });

  it('is for admins only: 401 without identity, 403 for others', async () => {
    const anonymous = await get('', null);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.error.code).to.equal('UNAUTHORIZED');
    const member = await get('', MEMBER);
    expect(member.status).to.equal(403);
    expect(member.body.error.code).to.equal('FORBIDDEN');
    expect((await post('default:1:w:0', 'discard', MEMBER)).status).to.equal(403);
  });
});
