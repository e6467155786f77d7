/**
 * Money is exact end to end: the sample application's currency amounts, written over JSON-RPC and
 * REST, add up exactly (0.1 + 0.2 = 0.3) in aggregates over both protocols and in the project's
 * actual cost its hook keeps, on the memory driver and each SQL engine — and come back as JSON
 * numbers, as the spec shapes them.
 */
import { expect } from 'chai';
import { identityHeader, startServer, USERS, type TestServer } from '../helpers/server';
import { DIALECTS, openNamespace, requireDialect, type Namespace } from './sql/helpers';

const MONEY = [
  { func: 'count', alias: 'n' },
  { func: 'sum', field: 'amount', alias: 'total' },
  { func: 'avg', field: 'amount', alias: 'mean' },
  { func: 'min', field: 'amount', alias: 'least' },
  { func: 'max', field: 'amount', alias: 'most' },
];

for (const label of ['memory', ...DIALECTS] as const) {
  describe(`money over JSON-RPC and REST (${label})`, function () {
    let ns: Namespace | undefined;
    let s: TestServer;
    const carol = USERS.carol;

    before(async function () {
      if (label !== 'memory') {
        await requireDialect(this, label);
        ns = await openNamespace(label);
      }
      s = await startServer(
        { plugins: { rpc: true, rest: true }, security: { allowBodyUser: true }, ...(ns ? { datasources: { default: ns.config() } } : {}) },
        { identityFromHeader: true },
      );
    });
    after(async () => {
      await s?.stop();
      await ns?.drop();
    });

    async function rpc(op: string, object: string, args: unknown): Promise<any> {
      const res = await s.rpc({ op, object, args, user: carol });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    }

    it('adds 0.1 and 0.2 to exactly 0.3 in every answer, as JSON numbers', async () => {
      const project = await rpc('create', 'project', { name: `Ledger ${label}`, status: 'planning' });
      const projectId = String(project.id);
      await rpc('create', 'expense', { project: projectId, amount: 0.1, category: 'travel' });
      const rest = await s.request(
        'POST',
        `${s.kernel.http.routes.data}/expense`,
        { project: projectId, amount: 0.2, category: 'travel' },
        identityHeader(carol),
      );
      expect(rest.status, JSON.stringify(rest.body)).to.equal(201);

      const filters = [['project', '=', projectId]];
      const viaRpc = await rpc('find', 'expense', { filters, aggregate: MONEY });
      expect(viaRpc.items).to.deep.equal([{ n: 2, total: 0.3, mean: 0.15, least: 0.1, most: 0.2 }]);

      const qs = new URLSearchParams({ filter: JSON.stringify(filters), aggregate: JSON.stringify(MONEY) });
      const viaRest = await fetch(`${s.url}${s.kernel.http.routes.data}/expense?${qs.toString()}`, { headers: identityHeader(carol) });
      const text = await viaRest.text();
      expect(viaRest.status, text).to.equal(200);
      // The spec's shape: numbers, not decimal strings.
      expect(text).to.contain('"total":0.3,').and.contain('"mean":0.15');
      expect(JSON.parse(text).items).to.deep.equal([{ n: 2, total: 0.3, mean: 0.15, least: 0.1, most: 0.2 }]);

      // expense.hook.ts keeps the project's actual cost equal to the sum of its expenses.
      const project2 = await rpc('findOne', 'project', { filters: { id: projectId }, fields: ['actual_cost'] });
      expect(project2.actual_cost).to.equal(0.3);
    });
  });
}
