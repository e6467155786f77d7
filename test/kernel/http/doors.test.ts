/**
 * How the door list (kernel/http/doors.ts) reads capabilities, for any plugin, built-in or not:
 * links, endpoints, prefixes, WebSockets, labels, own ports and the authentication hint. The page
 * and the banner over real servers: test/server/landing.test.ts, test/bin/banner.test.ts.
 */
import { expect } from 'chai';
import { Kernel } from '../../../kernel/kernel';
import { absoluteUrl, describeServer, listDoors } from '../../../kernel/http/doors';
import type { Capability } from '../../../kernel/hooks';

describe('door list', () => {
  const kernel = new Kernel({ logLevel: 'silent', basePath: '/v2' });
  const doors = (capabilities: Capability[]) => listDoors(kernel, capabilities);

  it('makes a GET without parameters a page, other methods an endpoint, and leaves out what lists no route', () => {
    const list = doors([
      { plugin: 'audit', protocol: 'http', routes: ['GET /v2/audit', 'POST /v2/audit', 'DELETE /v2/audit/purge'] },
      { plugin: 'limits', tiers: {} },
      { plugin: 'empty', routes: [] },
    ]);
    expect(list.map((d) => d.plugin)).to.deep.equal(['audit', 'kernel']);
    expect(list[0].urls).to.deep.equal([
      { kind: 'page', path: '/v2/audit', methods: ['GET', 'POST'] },
      { kind: 'endpoint', path: '/v2/audit/purge', methods: ['DELETE'] },
    ]);
    expect(list[1].urls.map((u) => u.path)).to.deep.equal(['/v2/health', '/v2/health/ready', '/v2/.well-known/objectql']);
  });

  it('gives routes with parameters one prefix: the route prefix holding them, else their common segments', () => {
    const [rest, reports] = doors([
      { plugin: 'rest', routes: ['GET /v2/api/data/:object', 'GET /v2/api/data/:object/:id'] },
      { plugin: 'reports', routes: ['GET /v2/reports/{name}', 'GET /v2/reports/{name}/runs/{run}'] },
    ]);
    expect(rest.urls).to.deep.equal([{ kind: 'prefix', path: '/v2/api/data', label: 'routes.data' }]);
    expect(reports.urls).to.deep.equal([{ kind: 'prefix', path: '/v2/reports' }]);
    // A prefix that is already a page of the door is not repeated.
    const [odata] = doors([{ plugin: 'odata', routes: ['GET /v2/odata', 'GET /v2/odata/{EntitySet}'], basePath: '/v2/odata' }]);
    expect(odata.urls).to.deep.equal([{ kind: 'page', path: '/v2/odata', methods: ['GET'] }]);
  });

  it('reads WebSockets, labels and a port of its own from the capability', () => {
    const [live, gql, openapi] = doors([
      { plugin: 'live', protocol: 'websocket', routes: ['/v2/live'] },
      { plugin: 'graphql', protocol: 'graphql', routes: ['GET /graphql', 'POST /graphql'], subscriptions: true, port: 4001 },
      { plugin: 'openapi', routes: ['GET /v2/doc.json', 'GET /v2/docs'], document: '/v2/doc.json', docs: '/v2/docs' },
    ]);
    expect(live.urls).to.deep.equal([{ kind: 'websocket', path: '/v2/live' }]);
    expect(gql.port).to.equal(4001);
    expect(gql.urls).to.deep.include({ kind: 'websocket', path: '/graphql', label: 'subscriptions' });
    expect(openapi.urls.map((u) => u.label)).to.deep.equal(['document', 'docs']);
    expect(absoluteUrl('http://127.0.0.1:3000', gql, gql.urls[1])).to.equal('ws://127.0.0.1:4001/graphql');
    expect(absoluteUrl('https://api.example.com', live, live.urls[0])).to.equal('wss://api.example.com/v2/live');
  });

  it('says how to authenticate in development only, from the credentials a capability lists', () => {
    const auth: Capability = {
      plugin: 'auth',
      credentials: ['bearer', 'apiKey', 'session'],
      required: true,
      routes: ['POST /v2/api/auth/session'],
    };
    expect(describeServer(kernel, { development: false, capabilities: [auth] })).to.not.have.property('authentication');
    const described = describeServer(kernel, { development: true, capabilities: [auth], configFile: 'app.config.ts' });
    expect(described.basePath).to.equal('/v2');
    expect(described.authentication).to.deep.equal({
      required: true,
      send: ['Authorization: Bearer <jwt>', 'X-API-Key: <key>', 'a session cookie from POST /v2/api/auth/session (with a token or key)'],
      configuredIn: "the options of plugin 'auth' in app.config.ts",
    });
    expect(describeServer(kernel, { development: true, capabilities: [] })).to.not.have.property('authentication');
  });
});
