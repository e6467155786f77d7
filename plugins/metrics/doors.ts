/**
 * Which door (protocol plugin) a request went through, for the `protocol` label: the plugin whose
 * advertised route (the discovery route's capabilities) has the longest static prefix the
 * request's route or path lies under. Only advertised prefixes ever become a value, so a client
 * cannot add label values by the paths it sends.
 */
import type { Capability } from '../../kernel';

/** The kernel's own routes (health, readiness, discovery) answer as 'kernel'; what no door claims, as 'none'. */
export function doorFinder(capabilities: Capability[], kernelPaths: string[]): (path: string) => string {
  const prefixes: Array<{ prefix: string; door: string }> = kernelPaths.map((prefix) => ({ prefix, door: 'kernel' }));
  for (const capability of capabilities) {
    for (const route of capability.routes ?? []) {
      const path = route.slice(route.indexOf(' ') + 1);
      prefixes.push({ prefix: staticPrefix(path), door: capability.plugin });
    }
  }
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  return (path) => prefixes.find(({ prefix }) => under(path, prefix))?.door ?? 'none';
}

/** `/api/data/:object/{id}` → `/api/data`: the segments before the first parameter or wildcard. */
function staticPrefix(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    if (/[:*{(]/.test(segment)) break;
    segments.push(segment);
  }
  return `/${segments.join('/')}`.replace(/\/+$/, '') || '/';
}

function under(path: string, prefix: string): boolean {
  if (prefix === '/') return path === '/';
  const lower = path.toLowerCase();
  const p = prefix.toLowerCase();
  return lower === p || lower.startsWith(`${p}/`);
}
