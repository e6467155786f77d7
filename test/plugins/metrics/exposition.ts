/**
 * Reads Prometheus's text exposition format (https://prometheus.io/docs/instrumenting/exposition_formats/)
 * into samples, enough for the tests: comments skipped, label values unescaped. Written here
 * because no maintained npm package parses it.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = value.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `labels`; undefined when there is none. */
export function sample(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.length === 0 ? undefined : found.reduce((sum, s) => sum + s.value, 0);
}
