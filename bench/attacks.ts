/**
 * `npm run bench:attacks`: the attacks of issue 14 replayed against a real server, each bounded in
 * size and time, with /health's latency measured during each.
 *
 * Each attack gets a fresh server (bench/target-server.ts, profile `attack`: the sample
 * application, every protocol, the auth plugin and the spec's rate limits) on a fresh SQLite file,
 * in its own process, with a file-descriptor limit of `--max-files` (default 4096, so that a bounded
 * number of held connections reaches it as 20,000 reached the default limit). Attackers connect
 * from 127.0.0.2 as the member `mallory` (or with wrong keys); /health is probed from 127.0.0.1
 * every 20 ms in a worker thread (bench/health.ts) for as long as the attack runs.
 *
 * A server whose resident memory passes `--cap-mib` (default 1536) is killed at once, and its attack
 * fails: the bench never threatens the machine. Each row's verdict: pass when every probe answered
 * 200 (each on a new connection), their p99 stayed within 100 ms, the server is still alive, its
 * resident memory grew by less than 512 MiB, and, for the wrong-key storm, upgrades met a 429 as
 * HTTP requests do; else 'fail:' and why. The outcome column says what the server did to the
 * attacker (a refusal is the good answer). `--only <name,...>` runs some
 * (matched on words of their names, case-insensitive); `--json` prints JSON instead of the table.
 * Exits non-zero when an attack failed its verdict.
 */
import { parseArgs } from 'node:util';
import { healthDuring, type HealthSamples } from './health';
import { aliasFlood, heldConnections, likePattern, slowClients } from './attacks-http';
import { graphqlWsFlood, pingFlood, realtimeFanout, slowReaders, wrongKeyStorm } from './attacks-ws';
import type { Attack } from './attack-kit';
import { capMemory, mib, rssOf, startTarget } from './target';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    'cap-mib': { type: 'string', default: '1536' },
    'max-files': { type: 'string', default: '4096' },
    json: { type: 'boolean', default: false },
  },
});

const CAP_BYTES = Number(args['cap-mib']) * 1048576;
const MAX_FILES = Number(args['max-files']);
const P99_TARGET_MS = 100;
/** More resident memory than this, gained during one attack, is memory the attacker controls. */
const GROWTH_LIMIT_MIB = 512;

const ATTACKS: Attack[] = [
  aliasFlood(10_000, 500_000),
  likePattern(20_000, 50_000),
  heldConnections(Math.round(MAX_FILES * 1.25), 10_000, MAX_FILES),
  slowClients(1000, 15_000),
  realtimeFanout(500, 100, 3),
  graphqlWsFlood(10_000),
  pingFlood(200_000),
  slowReaders(10, 32_000, 15_000),
  wrongKeyStorm(300),
];

interface Row {
  attack: string;
  size: string;
  seconds: number;
  health: HealthSamples;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  server: string;
  outcome: string;
  /** 'pass', or 'fail: ' and why. */
  verdict: string;
}

async function measure(attack: Attack): Promise<Row> {
  const target = await startTarget('sqlite', 'attack', { maxFiles: MAX_FILES });
  const cap = capMemory(target, CAP_BYTES);
  const rssBefore = rssOf(target.pid);
  const started = Date.now();
  try {
    for (let i = 0; i < 5; i++) await (await fetch(`${target.url}/health`)).arrayBuffer();
    const deadline = started + attack.seconds * 1000;
    const { result, health } = await healthDuring(target.url, async () => {
      // The attack stops by its deadline; this bound only catches a bench bug.
      let timer: NodeJS.Timeout | undefined;
      const overdue = new Promise<string>(
        (resolve) => (timer = setTimeout(() => resolve('stopped: over its time'), attack.seconds * 1000 + 30_000)),
      );
      try {
        return await Promise.race([attack.run({ target, deadline }).catch((err: Error) => `attack error: ${err.message}`), overdue]);
      } finally {
        clearTimeout(timer);
      }
    });
    let alive = !target.exited;
    if (alive) {
      try {
        alive = (await fetch(`${target.url}/health`, { signal: AbortSignal.timeout(10_000) })).status === 200;
      } catch {
        alive = false;
      }
    }
    const server = target.exited ?? (alive ? 'alive' : 'not answering');
    const growth = (cap.peak() - rssBefore) / 1048576;
    const problems = [
      alive ? undefined : 'server down',
      health.failures ? `${health.failures} probes failed` : undefined,
      health.p99 > P99_TARGET_MS ? `p99 over ${P99_TARGET_MS} ms` : undefined,
      growth > GROWTH_LIMIT_MIB ? `memory +${growth.toFixed(0)} MiB` : undefined,
      attack.expect?.(result),
    ].filter((p): p is string => p !== undefined);
    return {
      attack: attack.name,
      size: attack.size,
      seconds: (Date.now() - started) / 1000,
      health,
      rssBeforeMiB: rssBefore / 1048576,
      rssPeakMiB: cap.peak() / 1048576,
      server,
      outcome: result,
      verdict: problems.length ? `fail: ${problems.join(', ')}` : 'pass',
    };
  } finally {
    cap.stop();
    await target.stop();
  }
}

const f = (v: number, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

async function main() {
  const only = args.only?.toLowerCase().split(',');
  const chosen = only ? ATTACKS.filter((a) => only.some((o) => a.name.toLowerCase().includes(o.trim()))) : ATTACKS;
  const rows: Row[] = [];
  for (const attack of chosen) {
    if (!args.json) console.error(`${attack.name}: ${attack.size}…`);
    try {
      const row = await measure(attack);
      rows.push(row);
      if (!args.json)
        console.error(
          `  ${row.verdict}: /health p99 ${f(row.health.p99, 1)} ms, ${row.health.failures} failures; ${row.server}; ${row.outcome}`,
        );
    } catch (err) {
      console.error(`${attack.name}: not measured: ${(err as Error).stack ?? String(err)}`);
      process.exitCode = 1;
    }
  }
  if (args.json) {
    console.log(JSON.stringify(rows, null, 2));
  } else {
    console.log(`\n### Attacks: /health (probed every 20 ms from 127.0.0.1) during each; target p99 ≤ ${P99_TARGET_MS} ms, no failure\n`);
    console.log(
      '| attack | size | s | probes | failures | p50 ms | p99 ms | max ms | server RSS MiB before → peak | server | what the server did | verdict |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|');
    for (const r of rows)
      console.log(
        `| ${r.attack} | ${cell(r.size)} | ${f(r.seconds)} | ${r.health.count} | ${r.health.failures} | ${f(r.health.p50, 1)} | ${f(r.health.p99, 1)} | ${f(r.health.max)} | ${f(r.rssBeforeMiB)} → ${f(r.rssPeakMiB)} | ${cell(r.server)} | ${cell(r.outcome)} | ${r.verdict} |`,
      );
    console.log(`\nMemory cap: ${mib(CAP_BYTES)} MiB (the server is killed beyond it); server file limit: ${MAX_FILES}.`);
  }
  if (rows.some((r) => r.verdict !== 'pass')) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
