import { runDriverSuite } from '../tck/driver-suite';
import { sharedNamespace } from './sql/helpers';

describe('sql driver on MySQL / MariaDB', function () {
  const ns = sharedNamespace('mysql');
  before(async function () {
    await ns.prepare(this);
  });
  after(() => ns.drop());

  runDriverSuite('sql (mysql)', () => ns.make());
});
