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
const { readdirSync } = require('node:fs');
const { join, sep } = require('node:path');

const STREAMING = 'test/plugins/files/streaming.test.ts';

/**
 * The integration files that take longest (wall time, each alone), started first: the group's
 * workers take files in order, so a long file left to the end would be the group's tail, its other
 * workers idle. Measured on the CI machine; a file missing here runs in name order after these.
 */
const LONGEST_FIRST = [
  'test/drivers/sql-postgres.test.ts',
  'test/plugins/openapi/try-it-out-browser.test.ts',
  'test/bin/package.test.ts',
  'test/plugins/studio/console.test.ts',
  'test/plugins/events/e2e-processes.test.ts',
  'test/plugins/events/e2e-thread.test.ts',
  'test/bin/import-export.test.ts',
  'test/plugins/openapi/responses.test.ts',
  'test/deploy/image.test.ts',
  'test/drivers/sql-index-plans.test.ts',
  'test/server/db-faults.test.ts',
  'test/bin/migrate.test.ts',
  'test/drivers/sql-mysql.test.ts',
  'test/plugins/openapi/base-path.test.ts',
  'test/plugins/odata/typed-client/typed-client.test.ts',
  'test/plugins/graphql/graphiql-auth-browser.test.ts',
  'test/plugins/events/delivery.test.ts',
  'test/bin/typed-client.test.ts',
];

function groupOf(file) {
  if (file.startsWith('test/kernel/') || file.includes('/units/') || file.endsWith('/units.test.ts')) return 'unit';
  if (file.startsWith('test/matrix/')) return 'matrix';
  if (file === STREAMING) return 'streaming';
  return 'integration';
}

/** The test files of a group, as paths from the repository's root, in the order they are started. */
function filesOf(group) {
  const files = readdirSync(join(__dirname, '..', 'test'), { recursive: true })
    .map((name) => `test/${name.split(sep).join('/')}`)
    .filter((file) => file.endsWith('.test.ts') && groupOf(file) === group)
    .sort();
  const rank = (file) => (LONGEST_FIRST.includes(file) ? LONGEST_FIRST.indexOf(file) : LONGEST_FIRST.length);
  return files.sort((a, b) => rank(a) - rank(b));
}

/** Group name → the mocha options that select its files (and how it runs them). Listed in the order of the summary. */
module.exports = {
  unit: { spec: filesOf('unit') },
  // Its files wait on servers, databases and child processes far more than they compute: several
  // worker processes, each taking whole files, overlap those waits. A file's tests still run in order.
  // Four on two cores: most files wait on child processes (npm, Chromium, servers, brokers); with
  // the Studio and events tests, measured 277 s against 308 s with three (218 s against 244 s
  // earlier, three against two), the matrix beside them still done well before.
  integration: { spec: filesOf('integration'), parallel: true, jobs: 4 },
  matrix: { spec: filesOf('matrix') },
  streaming: { spec: filesOf('streaming') },
};
