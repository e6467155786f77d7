/**
 * The permission matrix (test/matrix): the same users, the same records and the same expectations
 * (table.ts), asserted through every protocol (adapters/) over real HTTP against a real server,
 * on each datasource, then through the engine's read visibility of held records
 * (visibility-cases.ts), change notifications (change-cases.ts) and the File API (file-cases.ts).
 * See table.ts for what is expected and protocol.ts for how a protocol joins.
 */
import { expect } from 'chai';
import { ADAPTERS } from './adapters';
import { changeCases } from './change-cases';
import { dataCases } from './data-cases';
import { describeCases } from './describe-cases';
import { fileCases } from './file-cases';
import { relationCases } from './relation-cases';
import { DATASOURCES, MatrixServer } from './server';
import { OBJECTS, RECORDS } from './table';
import { visibilityCases } from './visibility-cases';

for (const [name, datasources] of Object.entries(DATASOURCES)) {
  describe(`permission matrix on ${name}`, () => {
    const env = new MatrixServer(datasources, ADAPTERS);
    // The first start loads (and transpiles) the whole server: in CI, beside the other groups, it can take longer than one test's 20 s.
    before(function () {
      this.timeout(60000);
      return env.start();
    });
    after(() => env.stop());

    it('starts from the records the table expects', async () => {
      for (const object of OBJECTS) expect([...(await env.truth(object)).keys()], object).to.deep.equal(RECORDS[object]);
    });

    for (const adapter of ADAPTERS) {
      const { data, describe: describing } = adapter.connect(env.client);
      describe(adapter.name, () => {
        if (data) dataCases(env, data);
        if (data) describe('through relations', () => relationCases(env, data));
        if (describing) describeCases(env, describing);
      });
    }

    visibilityCases(env);
    changeCases(env);
    fileCases(env);
  });
}
