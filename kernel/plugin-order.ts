import type { Plugin } from './plugin';

export class PluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginError';
  }
}

/** Orders plugins so that each comes after everything it depends on; registration order breaks ties. */
export function orderPlugins<P extends Pick<Plugin, 'name' | 'dependsOn'>>(plugins: P[]): P[] {
  const byName = new Map(plugins.map((p) => [p.name, p]));
  for (const p of plugins) {
    for (const dep of p.dependsOn ?? []) {
      if (!byName.has(dep)) {
        throw new PluginError(
          `Plugin '${p.name}' depends on '${dep}', which is not registered; enable '${dep}' in the config's plugins or remove '${p.name}'`,
        );
      }
    }
  }
  const ordered: P[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: P, trail: string[]) => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') throw new PluginError(`Plugin dependency cycle: ${[...trail, p.name].join(' -> ')}`);
    state.set(p.name, 'visiting');
    for (const dep of p.dependsOn ?? []) visit(byName.get(dep)!, [...trail, p.name]);
    state.set(p.name, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);
  return ordered;
}
