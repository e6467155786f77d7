#!/usr/bin/env node
'use strict';
// Runs the built CLI (dist/, made by `npm run build`, which `npm install` runs via `prepare`).
const { main } = require('../dist/bin/cli.js');

main(process.argv.slice(2)).then((code) => {
  if (code !== 0) process.exit(code);
});
