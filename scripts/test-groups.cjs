/**
 * The groups of test files that `npm test` (scripts/test.mjs) runs side by side, each in a mocha
 * process of its own; .mocharc.cjs gives mocha the one TEST_GROUP names. A new test file falls into
 * a group by where it lives, with no list to edit:
 * - unit: test/kernel/** (the kernel alone: no plugin, no driver, no database), any `units/` folder
 *   and any `units.test.ts` (pure functions of a plugin or driver);
 * - integration: every other test/**\/*.test.ts: real servers, databases, Redis, the CLI;
 * - matrix: test/matrix/**, every protocol against every permission case;
 * - streaming: the test that measures a server's peak resident memory, alone in its process.
 */
const UNIT = ['test/kernel/**/*.test.ts', 'test/**/units/**/*.test.ts', 'test/**/units.test.ts'];
const MATRIX = ['test/matrix/**/*.test.ts'];
const STREAMING = ['test/plugins/files/streaming.test.ts'];

/** Group name → the mocha options that select its files (and how it runs them). Listed in the order of the summary. */
module.exports = {
  unit: { spec: UNIT },
  // Its files wait on servers, databases and child processes far more than they compute: several
  // worker processes, each taking whole files, overlap those waits. A file's tests still run in order.
  // Four on two cores: most files wait on child processes (npm, Chromium, servers, brokers); with
  // the Studio and events tests, measured 277 s against 308 s with three (218 s against 244 s
  // earlier, three against two), the matrix beside them still done well before.
  integration: { spec: ['test/**/*.test.ts'], ignore: [...UNIT, ...MATRIX, ...STREAMING], parallel: true, jobs: 4 },
  matrix: { spec: MATRIX },
  streaming: { spec: STREAMING },
};
