#!/usr/bin/env node
'use strict';
const v8 = require('node:v8');

// Start-up (modules, metadata, schemas) makes much short-lived garbage, and V8 sizes its young
// generation on it: 32 MB that the idle server keeps until V8's memory reducer gives it back, half
// a minute or more later. The young generation stays at its initial size until the server is up,
// then grows as before under load: ~25 MB less idle RSS (README, "Memory"). Left alone when a
// semi-space flag is given by hand.
const ownFlags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
const holdYoungGeneration = !/semi[-_]space/.test(ownFlags);
if (holdYoungGeneration) v8.setFlagsFromString('--semi-space-growth-factor=1');

// Runs the built CLI (dist/, made by `npm run build`, which `npm install` runs via `prepare`).
const { main } = require('../dist/bin/cli.js');

main(process.argv.slice(2)).then((code) => {
  if (holdYoungGeneration) v8.setFlagsFromString('--semi-space-growth-factor=2'); // V8's default
  if (code !== 0) process.exit(code);
});
