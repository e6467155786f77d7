/**
 * The kernel's JSON body parser (kernel/http/json-body.ts) over real HTTP: a compressed body that
 * does not decompress and a body nested deeper than limits.maxJsonDepth are 400 INVALID_REQUEST in
 * the spec's shape, never a 500; a well-formed compressed body is read.
 */
import { expect } from 'chai';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startServer, USERS, type TestServer } from '../../helpers/server';

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
});
