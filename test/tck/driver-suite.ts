/**
 * The driver conformance suite: every driver must pass it, through the Datasource interface only.
 * A driver test file calls runDriverSuite with a factory making a fresh, unconnected datasource.
 */
import type { Datasource } from '../../kernel/drivers';
import { clearAll, suiteObjects, type TckContext } from './fixtures';
import { defineAggregateTests } from './suite-aggregate';
import { defineAttachmentTests } from './suite-attachments';
import { defineConstraintTests } from './suite-constraints';
import { defineCrudTests } from './suite-crud';
import { defineFilterTests } from './suite-filters';
import { defineMoneyTests } from './suite-money';
import { defineQueryTests } from './suite-query';
import { defineRelationTests } from './suite-relations';
import { defineTransactionTests } from './suite-transactions';
import { defineValueTests } from './suite-values';

export interface DriverSuiteOptions {
  /** When set, the whole suite is reported as pending with this reason (e.g. "no server configured"). */
  skip?: string;
}

export function runDriverSuite(label: string, makeDatasource: () => Promise<Datasource> | Datasource, opts: DriverSuiteOptions = {}): void {
  const title = `driver suite: ${label}`;
  if (opts.skip) {
    describe(title, () => {
      it(`skipped: ${opts.skip}`);
    });
    return;
  }

  describe(title, function () {
    let current: Datasource | undefined;
    const ctx: TckContext = {
      get ds(): Datasource {
        if (!current) throw new Error('the driver suite has no datasource outside a test');
        return current;
      },
    };

    beforeEach(async () => {
      current = await makeDatasource();
      await current.connect();
      await current.syncSchema(suiteObjects());
      // A driver backed by a persistent store may still hold rows of an earlier run.
      await clearAll(current);
    });

    afterEach(async () => {
      const ds = current;
      current = undefined;
      if (!ds) return;
      try {
        await clearAll(ds);
      } finally {
        await ds.disconnect();
      }
    });

    defineCrudTests(ctx);
    defineFilterTests(ctx);
    defineAttachmentTests(ctx);
    defineQueryTests(ctx);
    defineAggregateTests(ctx);
    defineRelationTests(ctx);
    defineMoneyTests(ctx);
    defineConstraintTests(ctx);
    defineTransactionTests(ctx);
    defineValueTests(ctx);
  });
}
