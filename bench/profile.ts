/**
 * `npm run bench:profile`: one scenario through one protocol under load, with the server's CPU
 * profile (`node --cpu-prof`) written to PROFILE_DIR (default the OS temp dir) and summed up by
 * who spends the time: each sample goes to the nearest package or source folder up its stack
 * (knex, express, pino, graphql, our drivers/, kernel/engine/, plugins/<name>/ ...), so a cost
 * that runs inside Node's own code (writing the response, parsing JSON) counts for its caller.
 * Open the .cpuprofile in Chrome DevTools for the detail.
 *   SCENARIO (default get), PROTOCOL (rpc | rest | odata | graphql, default rest), STORE (default
 *   sqlite), ROWS (default 10000), PROFILE_SECONDS (default 10).
 */
import autocannon from 'autocannon';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startChild } from './child';
import { attribute, type CpuProfile } from './profile-owners';
import { formFor, type Urls } from './forms';
import { makeData, sent } from './scenarios';
import { seed } from './seed';
import { resetStore, type Store } from './stores';

const SCENARIO = process.env.SCENARIO ?? 'get';
const PROTOCOL = process.env.PROTOCOL ?? 'rest';
const STORE = (process.env.STORE ?? 'sqlite') as Store;
const ROWS = Number(process.env.ROWS ?? 10_000);
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);

async function main() {
  const data = makeData(ROWS);
  if (STORE !== 'memory') {
    await resetStore(STORE);
    await seed(STORE, data);
  }
  const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'objectql-profile-'));
  const { info, child } = await startChild<Urls>(resolve(__dirname, 'server.ts'), ['objectql', STORE, String(ROWS)], {
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  });
  const { url, request: r } = formFor(info, data, SCENARIO, PROTOCOL);
  const result = await autocannon({
    url: url.origin,
    duration: SECONDS,
    connections: 10,
    requests: [{ ...sent(r), path: r.path }],
  });
  // The server writes its profile when it exits on SIGINT (bench/server.ts).
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGINT');
  await exited;
  // The main thread's profile is the largest (tsx's loader thread writes one too).
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (!file) throw new Error(`no profile written in ${dir}`);
  console.log(`${SCENARIO} over ${PROTOCOL} on ${STORE}: ${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms`);
  console.log(`profile: ${file} (start-up included)\n`);
  for (const [owner, share] of attribute(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)) {
    if (share >= 0.005) console.log(`${(share * 100).toFixed(1).padStart(5)}%  ${owner}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
