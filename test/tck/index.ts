/// <reference types="mocha" />
/**
 * The driver suite for drivers of any origin (package subpath `objectql/tck`): the conformance
 * tests every ObjectQL driver passes, run through the Datasource interface only, and the fixtures
 * they use. Call runDriverSuite at the top level of a mocha test file with a factory making a
 * fresh, unconnected datasource; the suite connects it, syncs its objects, clears it and
 * disconnects it around every test. It runs under mocha (its describe / it / beforeEach globals)
 * and asserts with chai, which the driver's project provides as dev dependencies
 * (docs/plugins.md, "The driver suite").
 */
export { runDriverSuite, type DriverSuiteOptions } from './driver-suite';
export {
  DOC,
  ITEM,
  LEDGER,
  OWNER,
  SEED,
  VALUE,
  clearAll,
  idsOf,
  idsWhere,
  nullish,
  seedItems,
  suiteObjects,
  tckAttachmentObject,
  tckLedgerObject,
  tckObjects,
  tckValueObject,
  type TckContext,
} from './fixtures';
