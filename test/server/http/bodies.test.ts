/**
 * The kernel's JSON body parser (kernel/http/json-body.ts) over real HTTP: a compressed body that
 * does not decompress and a body nested deeper than limits.maxJsonDepth are 400 INVALID_REQUEST in
 * the spec's shape, never a 500; a well-formed compressed body is read. Most bodies (UTF-8 JSON with a
 * Content-Length) take the hand-written path of json-read.ts, the rest body-parser's: the same answers.
 */
import { expect } from 'chai';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { openRaw, parseRawResponse } from './raw-socket';

const ADMIN = { 'x-test-user': JSON.stringify(USERS.admin) };

function nested(depth: number): string {
  return `{"op":"count","object":"account","args":{"filters":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
}

describe('request bodies', () => {
  let s: TestServer;
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(s.url + path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...ADMIN, ...headers } }).then(
      async (res) => ({ status: res.status, body: (await res.json()) as any }),
    );

  before(async () => {
    s = await startServer({ plugins: { rpc: true, rest: true }, limits: { maxJsonDepth: 16 } }, { identityFromHeader: true });
  });
  after(async () => {
    await s?.stop();
  });

  it('that do not decompress as their Content-Encoding says are 400 INVALID_REQUEST (br, gzip, deflate)', async () => {
    for (const encoding of ['br', 'gzip', 'deflate']) {
      for (const path of ['/api/objectql', '/api/data/account']) {
        const res = await post(path, Buffer.from('{"not": "compressed at all"}'), { 'content-encoding': encoding });
        expect(res.status, `${encoding} ${path}: ${JSON.stringify(res.body)}`).to.equal(400);
        expect(res.body.error.code).to.equal('INVALID_REQUEST');
        expect(res.body.error.message).to.include(`Content-Encoding: ${encoding}`);
      }
    }
    // A body cut in the middle of its compressed stream.
    const cut = gzipSync(JSON.stringify({ op: 'count', object: 'account' })).subarray(0, 12);
    const res = await post('/api/objectql', cut, { 'content-encoding': 'gzip' });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('INVALID_REQUEST');
  });

  it('that decompress are read', async () => {
    const text = JSON.stringify({ op: 'count', object: 'account' });
    for (const [encoding, body] of [
      ['br', brotliCompressSync(text)],
      ['gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
    ] as const) {
      const res = await post('/api/objectql', body, { 'content-encoding': encoding });
      expect(res.status, `${encoding}: ${JSON.stringify(res.body)}`).to.equal(200);
    }
  });

  it('nested deeper than limits.maxJsonDepth are 400 INVALID_REQUEST before anything recurses, compressed or not', async () => {
    for (const body of [nested(17), nested(100_000)]) {
      for (const [headers, payload] of [
        [{}, body],
        [{ 'content-encoding': 'gzip' }, gzipSync(body)],
      ] as const) {
        const res = await post('/api/objectql', payload, headers);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error).to.deep.equal({
          code: 'INVALID_REQUEST',
          message: 'The request body is nested deeper than 16 levels',
          details: { limit: 'maxJsonDepth', max: 16 },
        });
      }
    }
    const rest = await post('/api/data/account', `{"name": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`);
    expect(rest.status).to.equal(400);
    expect(rest.body.error.details).to.deep.equal({ limit: 'maxJsonDepth', max: 16 });
    // Brackets inside strings are not nesting.
    const inString = await post('/api/data/account', JSON.stringify({ name: '['.repeat(1000) }));
    expect(inString.status, JSON.stringify(inString.body)).to.not.equal(500);
    expect(inString.body.error?.details?.limit).to.not.equal('maxJsonDepth');
  });

  it('at limits.maxJsonDepth pass the parser', async () => {
    const res = await post('/api/objectql', nested(16));
    expect(res.body.error?.details?.limit, JSON.stringify(res.body)).to.not.equal('maxJsonDepth');
  });

  it('that arrive in pieces are read whole, a character split between two pieces', async () => {
    const text = Buffer.from(JSON.stringify({ name: 'Zoë 😀 in pieces' }));
    const c = await openRaw(s.url);
    c.socket.write(
      `POST /api/data/account HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\n` +
        `X-Test-User: ${ADMIN['x-test-user']}\r\nConnection: close\r\n\r\n`,
    );
    const split = text.indexOf(0xf0) + 2; // inside the emoji's four bytes
    for (const piece of [text.subarray(0, 5), text.subarray(5, split), text.subarray(split)]) {
      c.socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const res = parseRawResponse(Buffer.from(await c.closed, 'latin1').toString('utf8'));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.name).to.equal('Zoë 😀 in pieces');
  });

  it('with a byte order mark, or in the UTF-16 their charset names, are read', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const json = (name: string) => JSON.stringify({ name });
    for (const [contentType, name, body] of [
      ['application/json', 'Ünïcode 1', (name: string) => Buffer.concat([bom, Buffer.from(json(name))])],
      ['application/json; charset=utf-8', 'Ünïcode 2', (name: string) => Buffer.concat([bom, Buffer.from(json(name))])],
      ['application/json; charset=utf-16le', 'Ünïcode 3', (name: string) => Buffer.from(json(name), 'utf16le')],
    ] as const) {
      const res = await post('/api/data/account', body(name), { 'content-type': contentType });
      expect(res.status, `${contentType}: ${JSON.stringify(res.body)}`).to.equal(201);
      expect(res.body.name).to.equal(name);
    }
  });

  it('larger than limits.maxBodyBytes are 400 INVALID_REQUEST, by Content-Length or as they stream', async () => {
    const big = JSON.stringify({ op: 'count', object: 'account', args: { filters: { name: 'x'.repeat(1_100_000) } } });
    const streamed = await fetch(s.url + '/api/objectql', {
      method: 'POST',
      body: new Blob([big]).stream(),
      duplex: 'half',
      headers: { 'content-type': 'application/json', ...ADMIN },
    });
    for (const res of [await post('/api/objectql', big), { status: streamed.status, body: (await streamed.json()) as any }]) {
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.equal({
        code: 'INVALID_REQUEST',
        message: 'Request body is larger than the limit of 1048576 bytes',
        details: { limit: 'maxBodyBytes', max: 1048576 },
      });
    }
  });

  it('cut before their Content-Length leave the server serving', async () => {
    for (const close of ['destroy', 'end'] as const) {
      const c = await openRaw(s.url);
      c.socket.write(
        `POST /api/objectql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n` +
          `X-Test-User: ${ADMIN['x-test-user']}\r\n\r\n{"op":"count",`,
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      c.socket[close]();
      await c.closed;
    }
    const res = await post('/api/objectql', JSON.stringify({ op: 'count', object: 'account' }));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
});
