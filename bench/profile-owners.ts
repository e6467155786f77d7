/** A V8 CPU profile's busy time by owner: each sample goes to the nearest package or source folder up its stack. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const OWNERS: Array<[RegExp, string]> = [
  [/node_modules\/(knex|tarn|better-sqlite3|pg|pg-protocol|mysql2)\//, 'SQL client (knex, drivers)'],
  [/node_modules\/(express|router|path-to-regexp|parseurl|finalhandler|send|on-finished|encodeurl|qs)\//, 'express'],
  [/node_modules\/(body-parser|raw-body|type-is|content-type|iconv-lite)\//, 'body-parser'],
  [/node_modules\/(pino|@pinojs)/, 'logging (pino)'],
  [/node_modules\/graphql\//, 'graphql-js'],
  [/node_modules\/tsx\//, 'tsx (start-up)'],
  [/\/(dist\/)?drivers\/([^/]+)\//, 'drivers/$2'],
  [/\/(dist\/)?kernel\/([^/]+)\//, 'kernel/$2'],
  [/\/(dist\/)?plugins\/([^/]+)\//, 'plugins/$2'],
  [/node_modules\/((@[^/]+\/)?[^/]+)\//, '$1'],
];

function ownerOf(url: string): string | undefined {
  for (const [pattern, name] of OWNERS) {
    const match = pattern.exec(url);
    if (match) return name.replace(/\$(\d)/g, (_, i: string) => match[Number(i)]);
  }
  return undefined;
}

/** [owner, share of busy time], largest first; idle time is left out, garbage collection is its own owner. */
export function attribute(profile: CpuProfile): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owners = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const time = profile.timeDeltas[i] ?? 0;
    const fn = byId.get(id)?.callFrame.functionName;
    if (fn === '(idle)' || fn === '(program)') return;
    busy += time;
    let owner = fn === '(garbage collector)' ? 'garbage collection' : undefined;
    for (let at: number | undefined = id; owner === undefined && at !== undefined; at = parent.get(at)) {
      owner = ownerOf(byId.get(at)?.callFrame.url ?? '');
    }
    owner ??= 'node (HTTP, timers, microtasks)';
    owners.set(owner, (owners.get(owner) ?? 0) + time);
  });
  return [...owners].map(([o, t]): [string, number] => [o, busy ? t / busy : 0]).sort((a, b) => b[1] - a[1]);
}
