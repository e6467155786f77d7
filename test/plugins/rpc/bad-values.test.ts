/**
 * JSON-RPC: the values and query inputs every engine must treat alike (test/helpers/bad-values.ts)
 * on SQLite, PostgreSQL and MariaDB, and JSON-RPC's own nested options beyond limits.maxJsonDepth.
 */
import { expect } from 'chai';
import { describeBadValues, type Door } from '../../helpers/bad-values';
import { startServer, USERS, type TestServer } from '../../helpers/server';

function rpcDoor(s: TestServer): Door {
  const call = (op: string, object: string, args: unknown, user: unknown) => s.rpc({ op, object, args, user });
  return {
    create: (object, data, user) => call('create', object, data, user),
    update: (object, id, data, user) => call('update', object, { id, data }, user),
    get: (object, id, user) => call('findOne', object, id, user),
    list: (object, { filter, skip }, user) => call('find', object, { filters: filter ? [filter] : undefined, skip }, user),
  };
}

/** `levels` of nesting around `leaf`, as JSON text (a value that deep cannot be built and stringified safely). */
const deepText = (levels: number, leaf: string) => `${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`;

describeBadValues(
  'JSON-RPC',
  (datasource) => startServer({ security: { allowBodyUser: true }, datasources: { default: datasource } }),
  rpcDoor,
  {
    extra: (server) => {
      const admin = JSON.stringify(USERS.admin);
      const find = (args: string) => server().rpc(`{"op":"find","object":"project","args":${args},"user":${admin}}`);
      for (const option of ['sort', 'fields', 'filters']) {
        it(`'${option}' nested 10,000 levels → 400 INVALID_REQUEST naming maxJsonDepth`, async () => {
          const res = await find(`{"${option}":${deepText(10_000, '"name"')}}`);
          expect(res.status, JSON.stringify(res.body)).to.equal(400);
          expect(res.body.error).to.include({ code: 'INVALID_REQUEST' });
          expect(res.body.error.details).to.include({ limit: 'maxJsonDepth', max: 64 });
        });
      }
      it("'expand' nested 30 levels inside the body's limit → 400 naming the option", async () => {
        let expand = '{}';
        for (let i = 0; i < 31; i++) expand = `{"account":{"expand":${expand}}}`;
        const res = await find(`{"expand":${expand}}`);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.details).to.include({ limit: 'maxJsonDepth', max: 64 });
      });
    },
  },
);
