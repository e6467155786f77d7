/**
 * One rule for a list's page size, whatever the protocol: JSON-RPC's `find` args and REST's query
 * string decode into the same values, which the shared protocol layer (top and its deprecated
 * alias limit) and the engine (maxTop) answer with the same body.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { ids, list, ok, startRestServer, type Res } from './helpers';

describe('top and limit: the same answer from JSON-RPC and REST', () => {
  let s: TestServer;

  before(async () => {
    s = await startRestServer();
  });
  after(async () => {
    await s?.stop();
  });

  const find = (args: Record<string, unknown>): Promise<Res> =>
    s.rpc({ op: 'find', object: 'task', args: { sort: 'id', ...args }, user: USERS.carol });
  const get = (params: Record<string, string>): Promise<Res> => list(s, 'task', { sort: 'id', ...params });

  function expectSameError(rpc: Res, rest: Res, error: Record<string, unknown>): void {
    expect(rpc.status, JSON.stringify(rpc.body)).to.equal(400);
    expect(rpc.body).to.deep.equal({ error });
    expect(rest.status, JSON.stringify(rest.body)).to.equal(400);
    expect(rest.body).to.deep.equal(rpc.body);
  }

  it('top and limit that disagree are refused, naming limit', async () => {
    expectSameError(await find({ top: 1, limit: 2 }), await get({ top: '1', limit: '2' }), {
      code: 'INVALID_REQUEST',
      message: "'top' (1) and 'limit' (2) disagree: 'limit' is a deprecated alias of 'top'; give one of them",
      details: { parameter: 'limit' },
    });
  });

  it('top and limit of the same value are accepted; limit alone is top', async () => {
    const first2 = ids(ok(await get({ top: '2' })));
    expect(first2).to.have.length(2);
    for (const args of [{ top: 2, limit: 2 }, { limit: 2 }]) expect(ids(ok(await find(args)))).to.deep.equal(first2);
    const queries: Array<Record<string, string>> = [{ top: '2', limit: '2' }, { limit: '2' }];
    for (const params of queries) expect(ids(ok(await get(params)))).to.deep.equal(first2);
  });

  it("top above the maximum is refused with the engine's message, also when it comes as limit", async () => {
    const error = { code: 'INVALID_REQUEST', message: "'top' may be at most 1000, got 5000", details: { parameter: 'top' } };
    expectSameError(await find({ top: 5000 }), await get({ top: '5000' }), error);
    expectSameError(await find({ limit: 5000 }), await get({ limit: '5000' }), error);
    expectSameError(await find({ top: 5000, limit: 5000 }), await get({ top: '5000', limit: '5000' }), error);
  });

  it('the maximum itself is served', async () => {
    expect(ok(await find({ top: 1000 })).meta).to.include({ size: 1000 });
    expect(ok(await get({ limit: '1000' })).meta).to.include({ size: 1000 });
  });
});
