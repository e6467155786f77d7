/**
 * Request timeouts (config `server`) over real TCP, with small configured values: a slowloris
 * (headers never finished), a connection that sends nothing and a slow body are answered 408 in the
 * spec's error shape and closed, while `/health` keeps answering; an idle keep-alive connection is
 * closed; a request that is not HTTP is a 400 in the same shape.
 */
import { expect } from 'chai';
import { probeHealthDuring } from '../../helpers/health-probe';
import { startServer, type TestServer } from '../../helpers/server';
import { dribble, openRaw, parseRawResponse } from './raw-socket';

const SERVER = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 200 };

describe('server timeouts', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ plugins: { rpc: true }, server: SERVER });
  });
  after(async () => {
    await s?.stop();
  });

  it('cut a slowloris (headers never finished) after server.headersTimeoutMs, /health answering meanwhile', async () => {
    const { result, health } = await probeHealthDuring(s.url, async () => {
      const lorises = await Promise.all(Array.from({ length: 20 }, () => openRaw(s.url, '127.0.0.2')));
      for (const l of lorises) l.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      await Promise.all(lorises.map((l) => dribble(l.socket, ['X-Slow: 1\r\n'], 50)));
      return Promise.all(lorises.map((l) => l.closed));
    });
    expect(health.failures).to.equal(0);
    for (const text of result) {
      const answer = parseRawResponse(text);
      expect(answer.status).to.equal(408);
      expect(answer.body.error.code).to.equal('INVALID_REQUEST');
      expect(answer.body.error.details).to.deep.equal({ limit: 'server.headersTimeoutMs', max: SERVER.headersTimeoutMs });
    }
  });

  it('cut a connection that sends nothing after server.headersTimeoutMs', async () => {
    const silent = await openRaw(s.url, '127.0.0.2');
    const answer = parseRawResponse(await silent.closed);
    expect(answer.status).to.equal(408);
    expect(answer.body.error.details.limit).to.equal('server.headersTimeoutMs');
  });

  it('cut a slow body after server.requestTimeoutMs, /health answering meanwhile', async () => {
    const { result, health } = await probeHealthDuring(s.url, async () => {
      const slow = await Promise.all(Array.from({ length: 20 }, () => openRaw(s.url, '127.0.0.2')));
      for (const c of slow) {
        c.socket.write('POST /api/objectql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"op":');
      }
      await Promise.all(slow.map((c) => dribble(c.socket, [' '], 50)));
      return Promise.all(slow.map((c) => c.closed));
    });
    expect(health.failures).to.equal(0);
    for (const text of result) {
      const answer = parseRawResponse(text);
      expect(answer.status).to.equal(408);
      expect(answer.body.error.code).to.equal('INVALID_REQUEST');
      expect(answer.body.error.details).to.deep.equal({ limit: 'server.requestTimeoutMs', max: SERVER.requestTimeoutMs });
      expect(answer.body.error.message).to.equal('The request body did not arrive within 600 ms');
    }
  });

  it('close an idle keep-alive connection after server.keepAliveTimeoutMs', async () => {
    const c = await openRaw(s.url);
    c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await c.closed;
    expect(parseRawResponse(text).status).to.equal(200);
    expect(text).to.match(/keep-alive/i);
  });

  it('answer a request that is not HTTP with 400 INVALID_REQUEST', async () => {
    const c = await openRaw(s.url);
    c.socket.write('HELLO THERE\r\n\r\n');
    const answer = parseRawResponse(await c.closed);
    expect(answer.status).to.equal(400);
    expect(answer.body.error.code).to.equal('INVALID_REQUEST');
  });

  it('answer headers larger than Node accepts with 431 INVALID_REQUEST', async () => {
    const c = await openRaw(s.url);
    c.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const answer = parseRawResponse(await c.closed);
    expect(answer.status).to.equal(431);
    expect(answer.body.error.code).to.equal('INVALID_REQUEST');
  });
});
