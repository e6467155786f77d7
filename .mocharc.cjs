/**
 * Mocha's configuration. TEST_GROUP=<name> runs one group of scripts/test-groups.cjs (what
 * `npm run test:<name>` does; `npm test` runs them all side by side); without it, `npx mocha` runs
 * every test file in one process, one after the other.
 */
const GROUPS = require('./scripts/test-groups.cjs');

const group = process.env.TEST_GROUP;
if (group && !Object.hasOwn(GROUPS, group)) {
  throw new Error(`TEST_GROUP=${group} is not a test group; the groups are ${Object.keys(GROUPS).join(', ')}`);
}

module.exports = {
  require: ['tsx/cjs'],
  extension: ['ts'],
  recursive: true,
  timeout: 20000,
  exit: false,
  ...(group ? GROUPS[group] : { spec: ['test/**/*.test.ts'] }),
};
