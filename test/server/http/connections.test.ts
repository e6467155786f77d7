/**
 * Connection limits (config `server`, kernel/http/connection-guard.ts) over real TCP: one address
 * holding many connections is capped (429 in the spec's shape, then closed) while `/health` from
 * another address keeps answering; the server-wide cap answers 503 with Retry-After; a freed
 * connection can be opened again.
 */
import { expect } from 'chai';
import { probeHealthDuring } from '../../helpers/health-probe';
import { startServer, type TestServer } from '../../helpers/server';
import { openRaw, parseRawResponse, type RawConnection } from './raw-socket';

const ATTACKER = '127.0.0.2';

/** Opens `count` connections from `from`, `batch` at a time; resolves with them all, refused or not. */
async function flood(url: string, from: string, count: number, batch = 50): Promise<RawConnection[]> {
  const opened: RawConnection[] = [];
  for (let i = 0; i < count; i += batch) {
    opened.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => openRaw(url, from)))));
  }
  return opened;
}

/** Waits (bounded by the test's timeout) until `n` of the connections have been closed by the server. */
async function refusedOf(connections: RawConnection[], n: number): Promise<RawConnection[]> {
  const closed: RawConnection[] = [];
  await new Promise<void>((resolve) => {
    for (const c of connections)
      void c.closed.then(() => {
        closed.push(c);
        if (closed.length === n) resolve();
      });
  });
  return closed;
}

describe('server connection limits', () => {
  let s: TestServer;
  afterEach(async () => {
    await s?.stop();
  });

  it('caps the connections of one address (server.maxConnectionsPerIp) while /health from another keeps answering', async () => {
    const cap = 40;
    const attempts = 400;
    s = await startServer({ server: { maxConnectionsPerIp: cap } });
    const { result, health } = await probeHealthDuring(s.url, async () => {
      const connections = await flood(s.url, ATTACKER, attempts);
      const refused = await refusedOf(connections, attempts - cap);
      // Held a little longer, so the probe also runs while the address sits at its cap.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { connections, refused };
    });
    const { connections, refused } = result;
    console.log(`      /health during ${attempts} connections: ${health.count} probes, p99 ${health.p99.toFixed(1)} ms`);
    expect(health.failures, 'every /health probe answered 200').to.equal(0);
    expect(health.count).to.be.greaterThan(0);
    expect(refused).to.have.length(attempts - cap);
    const answer = parseRawResponse(refused[0].received());
    expect(answer.status).to.equal(429);
    expect(answer.headers['retry-after']).to.equal('1');
    expect(answer.body.error.code).to.equal('RATE_LIMIT_EXCEEDED');
    expect(answer.body.error.details).to.deep.equal({ limit: 'server.maxConnectionsPerIp', max: cap });
    const held = connections.filter((c) => !refused.includes(c));
    expect(held).to.have.length(cap);
    expect(
      held.every((c) => c.received() === ''),
      'the connections within the cap are not answered',
    ).to.equal(true);

    // Within its cap the address is served; closing connections frees places.
    const open = held.pop()!;
    open.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(parseRawResponse(await open.closed).status).to.equal(200);
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    // The server sees the closes a moment after the client does: retry until it has.
    let status = 0;
    while (status !== 200) {
      const again = await openRaw(s.url, ATTACKER);
      again.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      status = parseRawResponse(await again.closed).status;
    }
  });

  it('caps the connections of the whole server (server.maxConnections): 503 with Retry-After', async () => {
    const max = 20;
    s = await startServer({ server: { maxConnections: max } });
    const connections = await flood(s.url, '127.0.0.3', max + 10, 10);
    const refused = await refusedOf(connections, 10);
    const answer = parseRawResponse(refused[0].received());
    expect(answer.status).to.equal(503);
    expect(answer.headers['retry-after']).to.equal('1');
    expect(answer.body.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(answer.body.error.details).to.deep.equal({ limit: 'server.maxConnections', max });
    for (const c of connections) c.socket.destroy();
  });

  it('refuses a server setting that cannot work, naming it', async () => {
    let error: Error | undefined;
    try {
      s = await startServer({ server: { headersTimeoutMs: 5000, requestTimeoutMs: 1000 } });
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).to.include('server.headersTimeoutMs');
  });
});
