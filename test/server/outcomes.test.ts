/**
 * The kernel's `responded` and `operation` hooks (kernel/outcomes.ts), as an observer plugin sees
 * them through a real server: route patterns rather than paths, 404s without a route, engine
 * outcomes with the error's code, and an observer that throws changes no answer.
 */
import { expect } from 'chai';
import type { HttpOutcome, OperationOutcome } from '../../kernel';
import { identityHeader, startServer, type TestServer } from '../helpers/server';

const ADMIN = identityHeader({ id: 'root', roles: ['admin'] });

describe('kernel outcome hooks', () => {
  let server: TestServer;
  const responses: HttpOutcome[] = [];
  const operations: OperationOutcome[] = [];
  let failObservers = false;

  before(async () => {
    server = await startServer(
      { plugins: { rest: true, rpc: true }, security: { adminRoles: ['admin'] } },
      {
        identityFromHeader: true,
        use: [
          {
            name: 'observer',
            register(k) {
              k.hooks.responded.tap('observer', (o) => {
                responses.push(o);
                if (failObservers) throw new Error('observer down');
              });
              k.hooks.operation.tap('observer', (o) => {
                operations.push(o);
                if (failObservers) throw new Error('observer down');
              });
            },
          },
        ],
      },
    );
  });
  after(() => server?.stop());
  beforeEach(() => {
    responses.length = 0;
    operations.length = 0;
    failObservers = false;
  });

  /** The response hook runs when the connection's response has closed: after the client has read it. */
  const settled = async (n: number) => {
    for (let i = 0; i < 50 && responses.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('reports each response with its route pattern, path, status and time', async () => {
    await server.request('GET', '/api/data/project/p-unknown?fields=name', undefined, ADMIN);
    await server.request('GET', '/nowhere', undefined, ADMIN);
    await settled(2);
    const [record, nowhere] = responses;
    expect(record).to.include({ method: 'GET', route: '/api/data/:object/:id', path: '/api/data/project/p-unknown', status: 404 });
    expect(record.seconds).to.be.a('number').and.at.least(0);
    expect(nowhere).to.include({ route: undefined, path: '/nowhere', status: 404 });
  });

  it('reports each engine operation with its object and outcome: ok or the error code', async () => {
    await server.rpc({ op: 'count', object: 'project' }, ADMIN);
    await server.rpc({ op: 'create', object: 'project', args: {} }, ADMIN);
    await server.rpc({ op: 'find', object: 'nothing_like_it' }, ADMIN);
    const seen = operations.map(({ object, operation, outcome }) => ({ object, operation, outcome }));
    expect(seen[0]).to.deep.equal({ object: 'project', operation: 'count', outcome: 'ok' });
    expect(seen[1]).to.include({ object: 'project', operation: 'create' });
    expect(seen[1].outcome).to.match(/^VALIDATION/);
    // An unknown object never reaches a repository: nothing to report.
    expect(seen).to.have.length(2);
  });

  it('an observer that throws changes no answer', async () => {
    failObservers = true;
    const counted = await server.rpc({ op: 'count', object: 'project' }, ADMIN);
    expect(counted.status).to.equal(200);
    const listed = await server.request('GET', '/api/data/project', undefined, ADMIN);
    expect(listed.status).to.equal(200);
    await settled(2);
    expect(responses).to.have.length(2);
    expect(operations.length).to.be.at.least(2);
  });
});
