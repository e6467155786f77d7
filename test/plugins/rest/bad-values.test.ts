/**
 * REST: the values and query inputs every engine must treat alike (test/helpers/bad-values.ts) on
 * SQLite, PostgreSQL and MariaDB, and REST's JSON-form query parameters nested beyond
 * limits.maxJsonDepth, refused before they are parsed.
 */
import { expect } from 'chai';
import { describeBadValues, type Door } from '../../helpers/bad-values';
import { identityHeader, startServer, USERS, type TestServer } from '../../helpers/server';

function restDoor(s: TestServer): Door {
  const base = s.kernel.http.routes.data;
  const send = (method: string, path: string, body: unknown, user: object) => s.request(method, base + path, body, identityHeader(user));
  return {
    create: (object, data, user) => send('POST', `/${object}`, data, user),
    update: (object, id, data, user) => send('PATCH', `/${object}/${encodeURIComponent(id)}`, data, user),
    get: (object, id, user) => send('GET', `/${object}/${encodeURIComponent(id)}`, undefined, user),
    list: (object, { filter, skip }, user) => {
      const params = new URLSearchParams();
      if (filter) params.set('filter', JSON.stringify([filter]));
      if (skip !== undefined) params.set('skip', String(skip));
      return send('GET', `/${object}?${params.toString()}`, undefined, user);
    },
  };
}

describeBadValues(
  'REST',
  (datasource) => startServer({ plugins: { rpc: true, rest: true }, datasources: { default: datasource } }, { identityFromHeader: true }),
  restDoor,
  {
    extra: (server) => {
      const deep = (levels: number, leaf: string) => `${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`;
      for (const [param, leaf] of [
        ['filter', '["name","=","x"]'],
        ['sort', '"name"'],
        ['fields', '"name"'],
        ['aggregate', '{"func":"count","alias":"n"}'],
      ]) {
        it(`query parameter '${param}' nested 3,000 levels → 400 INVALID_REQUEST naming maxJsonDepth`, async () => {
          const s = server();
          const res = await s.request(
            'GET',
            `${s.kernel.http.routes.data}/project?${param}=${deep(3000, leaf)}`,
            undefined,
            identityHeader(USERS.admin),
          );
          expect(res.status, JSON.stringify(res.body)).to.equal(400);
          expect(res.body.error).to.include({ code: 'INVALID_REQUEST' });
          expect(res.body.error.message).to.include(`'${param}'`);
          expect(res.body.error.details).to.include({ limit: 'maxJsonDepth', max: 64 });
        });
      }
      it("query parameter 'expand' nested 200 levels → 400 INVALID_REQUEST naming maxJsonDepth", async () => {
        const s = server();
        const expand = `${'{"account":{"expand":'.repeat(100)}{}${'}}'.repeat(100)}`;
        const res = await s.request(
          'GET',
          `${s.kernel.http.routes.data}/project?expand=${encodeURIComponent(expand)}`,
          undefined,
          identityHeader(USERS.admin),
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.details).to.include({ limit: 'maxJsonDepth', max: 64 });
      });
    },
  },
);
