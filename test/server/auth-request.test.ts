/**
 * One `authenticate` tap serves every transport (kernel/http/auth-request.ts): a third-party plugin
 * records what the hook hands it while a caller authenticates over HTTP (JSON-RPC and REST), a
 * realtime WebSocket upgrade, the realtime `{type: 'auth', token}` message, and a graphql-ws
 * `connection_init` with the `authorization` connection parameter. Each recorded request has
 * exactly the AuthRequest members, with the right types and values, and none is an Express request.
 */
import { expect } from 'chai';
import { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { AuthRequest, Plugin } from '../../server';
import { startServer, type TestServer } from '../helpers/server';

const TOKEN = 'tap-test-token-0123456789';
const BEARER = `Bearer ${TOKEN}`;
const TESTER = { id: 'tester', roles: ['admin'] };
const MEMBERS = ['body', 'headers', 'ip', 'log', 'method', 'path', 'responseHeaders', 'secure', 'transport'];

/** The names a tap can read on the request: own properties and accessors up its prototype chain (not methods). */
function members(request: object): string[] {
  const names = new Set(Object.keys(request));
  for (let proto: unknown = Object.getPrototypeOf(request); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (descriptor.get) names.add(name);
  }
  return [...names].sort();
}

describe('server: the authenticate hook sees one request shape on every transport', () => {
  let server: TestServer;
  let seen: AuthRequest[] = [];
  /** A third-party authentication plugin: it knows one token, records every request, and marks the HTTP answers. */
  const recorder: Plugin = {
    name: 'auth-recorder',
    register(kernel) {
      kernel.hooks.authenticate.tapPromise('auth-recorder', (request) => {
        seen.push(request);
        if (request.transport === 'http') request.responseHeaders.set('x-auth-recorder', 'seen');
        return Promise.resolve(request.headers.authorization === BEARER ? TESTER : undefined);
      });
    },
  };
  const wsUrl = (path: string) => server.url.replace(/^http/, 'ws') + path;
  /** The one request recorded while `action` ran. */
  const recordedDuring = async (action: () => Promise<unknown>): Promise<AuthRequest> => {
    seen = [];
    await action();
    expect(seen, 'authenticate calls').to.have.length(1);
    return seen[0];
  };

  /** What every AuthRequest must be, whatever its transport. */
  function expectAuthRequest(request: AuthRequest, expected: Pick<AuthRequest, 'transport' | 'method' | 'path'>): void {
    expect(members(request)).to.deep.equal(MEMBERS);
    expect(request).to.include(expected);
    expect(request.headers).to.be.an('object');
    for (const [name, value] of Object.entries(request.headers)) {
      expect(name, 'header names are lower case').to.equal(name.toLowerCase());
      expect(value, name).to.be.a('string');
    }
    expect(request.ip).to.equal('127.0.0.1');
    expect(request.secure).to.equal(false);
    for (const level of ['debug', 'info', 'warn', 'error', 'child'] as const) expect(typeof request.log[level], level).to.equal('function');
    expect(request.responseHeaders).to.be.instanceOf(Headers);
    // Not an Express (or Node) request: nothing a tap could come to depend on that only HTTP has.
    expect(request).to.not.be.instanceOf(IncomingMessage);
    for (const name of ['app', 'res', 'get', 'socket', 'originalUrl', 'query', 'params', 'cookies'])
      expect(name in request, `the request has '${name}'`).to.equal(false);
  }

  before(async () => {
    server = await startServer({ plugins: { rpc: true, rest: true, realtime: true, graphql: true } }, { use: [recorder] });
  });
  after(async () => {
    await server?.stop();
  });

  it('HTTP, JSON-RPC: the POST with its JSON body', async () => {
    const call = { op: 'count', object: 'account', args: {} };
    let status = 0;
    let marked: string | null = null;
    const request = await recordedDuring(async () => {
      const res = await server.rpc(call, { authorization: BEARER });
      status = res.status;
      marked = res.headers.get('x-auth-recorder');
    });
    expect(status).to.equal(200);
    expect(marked, 'the headers the tap added are on the answer').to.equal('seen');
    expectAuthRequest(request, { transport: 'http', method: 'POST', path: '/api/objectql' });
    expect(request.headers.authorization).to.equal(BEARER);
    expect(request.headers['content-type']).to.equal('application/json');
    expect(request.body).to.deep.equal(call);
  });

  it('HTTP, REST: the GET, its path without the query string, no body', async () => {
    let status = 0;
    const request = await recordedDuring(async () => {
      status = (await server.request('GET', '/api/data/account?top=1', undefined, { Authorization: BEARER })).status;
    });
    expect(status).to.equal(200);
    expectAuthRequest(request, { transport: 'http', method: 'GET', path: '/api/data/account' });
    expect(request.headers.authorization).to.equal(BEARER);
    expect(request.body).to.equal(undefined);
  });

  it("a realtime WebSocket upgrade: the upgrade request's headers, the socket's path", async () => {
    const request = await recordedDuring(async () => {
      const ws = new WebSocket(wsUrl('/api/realtime?client=test'), { headers: { Authorization: BEARER } });
      try {
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      } finally {
        ws.close();
      }
    });
    expectAuthRequest(request, { transport: 'ws', method: 'GET', path: '/api/realtime' });
    expect(request.headers.authorization).to.equal(BEARER);
    expect(request.headers.upgrade).to.equal('websocket');
    expect(request.body).to.equal(undefined);
  });

  it("the realtime {type: 'auth', token} message: the token as the Authorization header, the socket's path", async () => {
    const ws = new WebSocket(wsUrl('/api/realtime'));
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      let answer: any;
      const request = await recordedDuring(async () => {
        const reply = new Promise((resolve) => ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')))));
        ws.send(JSON.stringify({ type: 'auth', id: 'a1', token: TOKEN }));
        answer = await reply;
      });
      expect(answer).to.deep.equal({ type: 'ack', id: 'a1', user: TESTER });
      expectAuthRequest(request, { transport: 'ws', method: 'GET', path: '/api/realtime' });
      expect(request.headers).to.deep.equal({ authorization: BEARER });
      expect(request.body).to.equal(undefined);
    } finally {
      ws.close();
    }
  });

  it("graphql-ws connection_init with the authorization parameter: that alone as the headers, the socket's path", async () => {
    const ws = new WebSocket(wsUrl('/api/graphql'), 'graphql-transport-ws');
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      let answer: any;
      const request = await recordedDuring(async () => {
        const reply = new Promise((resolve) => ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')))));
        ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: BEARER } }));
        answer = await reply;
      });
      expect(answer).to.include({ type: 'connection_ack' });
      expectAuthRequest(request, { transport: 'ws', method: 'GET', path: '/api/graphql' });
      expect(request.headers).to.deep.equal({ authorization: BEARER });
      expect(request.body).to.equal(undefined);
    } finally {
      ws.close();
    }
  });
});
