import { runDriverSuite } from '../tck/driver-suite';
import { sharedNamespace } from './sql/helpers';

describe('sql driver on PostgreSQL', function () {
  const ns = sharedNamespace('postgres');
  before(async function () {
    await ns.prepare(this);
  });
  after(() => ns.drop());

  runDriverSuite('sql (postgres)', () => ns.make());
});
