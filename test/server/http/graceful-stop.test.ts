/**
 * Stopping the kernel (kernel/http/server-lifecycle.ts): a large response being read slowly when
 * the stop begins arrives whole before the server closes; idle keep-alive connections do not hold
 * the stop; a client that never reads is cut at server.shutdownTimeoutMs. The same through the
 * command line on SIGTERM: test/bin/cli.test.ts.
 */
import { expect } from 'chai';
import type { Plugin } from '../../../kernel';
import { startServer, type TestServer } from '../../helpers/server';
import { openRaw, parseRawResponse, slowGet, splitResponse } from './raw-socket';

/** A route answering `count` records of 8 KB each (JSON, with a Content-Length). */
const bigRoute: Plugin = {
  name: 'big-response',
  register(k) {
    k.hooks.routes.tap('big-response', (router) => {
      router.get('/big', (req, res) => {
        const count = Number(req.query.count ?? 1000);
        res.json({ items: Array.from({ length: count }, (_, i) => ({ id: i, text: 'x'.repeat(8000) })) });
      });
    });
  },
};

describe('graceful stop', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  it('lets a large response in flight to a slow reader finish, then closes', async () => {
    s = await startServer({ server: { shutdownTimeoutMs: 15_000 } }, { use: [bigRoute] });
    const reader = slowGet(s.url, '/big?count=1000');
    await reader.started;
    let stopped = false;
    const stopping = s.stop().then(() => (stopped = true));
    const raw = await reader.done;
    await stopping;
    s = undefined;
    expect(stopped).to.equal(true);
    const { status, headers, body } = splitResponse(raw);
    expect(status).to.equal(200);
    expect(body.length, 'the whole body arrived').to.equal(Number(headers['content-length']));
    expect(JSON.parse(body.toString('utf8')).items).to.have.length(1000);
  });

  it('does not wait for idle keep-alive connections', async () => {
    // A stop that waited for them would take the whole (long) shutdown timeout: past the test's.
    s = await startServer({ server: { shutdownTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000, requestTimeoutMs: 60_000 } });
    const idle = await Promise.all(Array.from({ length: 5 }, () => openRaw(s!.url)));
    for (const c of idle) c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await Promise.all(idle.map((c) => new Promise((resolve) => c.socket.once('data', resolve))));
    await s.stop();
    s = undefined;
    for (const c of idle) {
      const text = await c.closed;
      expect(parseRawResponse(text).status).to.equal(200);
    }
  });

  it('cuts a client that stops reading at server.shutdownTimeoutMs', async () => {
    s = await startServer({ server: { shutdownTimeoutMs: 300 } }, { use: [bigRoute] });
    const stuck = slowGet(s.url, '/big?count=2000', 64 * 1024, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the server has begun answering
    await s.stop();
    s = undefined;
    stuck.speedUp();
    const raw = await stuck.done;
    const { status, headers, body } = splitResponse(raw);
    expect(status).to.equal(200);
    expect(body.length, 'the response was cut').to.be.below(Number(headers['content-length']));
  });
});
