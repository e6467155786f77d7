/**
 * The read-visibility API under the permission matrix: `repo.visibility()` judges records a caller
 * holds without having read them (a deleted record in a change event, a file's holder), so for
 * every user × object it must say exactly what the table says a query shows — read permission,
 * the readable fields, the records in scope (every seeded record, as stored, judged one by one) —
 * and a filter naming a hidden field must be refused as one naming a field that does not exist.
 */
import { expect } from 'chai';
import { toObjectQLError } from '../../kernel';
import type { MatrixServer } from './server';
import { cell, NO_SUCH_FIELD, OBJECTS } from './table';
import { MATRIX_USERS, USER_NAMES } from './users';

export function visibilityCases(env: MatrixServer): void {
  describe('read visibility of held records (repo.visibility())', () => {
    for (const object of OBJECTS) {
      for (const user of USER_NAMES) {
        const c = cell(object, user);
        it(`${user} · ${object}: ${c.ops.includes('R') ? `${c.ids.length} records in scope` : 'no read'}`, async () => {
          const visibility = env.kernel.engine.repo(object, { user: MATRIX_USERS[user].user }).visibility();
          const stored = await env.capture();
          const records = stored.get(object)!;
          const readableFields = env.fields(object).filter((f) => !c.hidden.includes(f));
          expect(visibility.canRead, 'canRead').to.equal(c.ops.includes('R'));
          expect([...visibility.readable].sort(), 'readable').to.deep.equal(c.ops.includes('R') ? [...readableFields].sort() : []);
          const inScope = records.filter((r) => visibility.matches(r)).map((r) => r.id as string);
          expect(inScope.sort(), 'records in scope').to.deep.equal([...c.ids].sort());
          for (const r of records) {
            const shown = visibility.mask(r);
            expect(Object.keys(shown).sort(), `${r.id as string}: fields shown`).to.deep.equal(
              c.ops.includes('R') ? [...readableFields].sort() : [],
            );
            // A filter of the caller's own, checked as a query's: it narrows the scope, never widens it.
            expect(visibility.matches(r, [['id', '=', r.id]]), `${r.id as string}: matches its own id`).to.equal(
              c.ids.includes(r.id as string),
            );
            expect(visibility.matches(r, [['id', '!=', r.id]]), `${r.id as string}: matches another id`).to.equal(false);
          }
          if (!c.ops.includes('R') || !records.length) return;
          for (const hidden of c.hidden) {
            const asHidden = refusal(() => visibility.matches(records[0], [[hidden, '=', null]]));
            const asUnknown = refusal(() => visibility.matches(records[0], [[NO_SUCH_FIELD, '=', null]]));
            expect(asHidden?.code, `a filter on hidden '${hidden}'`).to.equal('INVALID_REQUEST');
            expect(
              JSON.stringify(asHidden?.toBody()).split(hidden).join(NO_SUCH_FIELD),
              `'${hidden}' answered as a field that does not exist`,
            ).to.equal(JSON.stringify(asUnknown?.toBody()));
          }
        });
      }
    }
  });
}

function refusal(run: () => unknown): ReturnType<typeof toObjectQLError> | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return toObjectQLError(err);
  }
}
