/**
 * Which door (protocol plugin) a request went through, for the `protocol` label: the door of the
 * discovery data (the kernel's describeServer, as the landing page lists them) one of whose URLs is
 * the longest prefix the request's route or path lies under. Only those URLs ever become a value,
 * so a client cannot add label values by the paths it sends.
 */
import type { Door } from '../../kernel';

/** The kernel's own routes answer as 'kernel' (its door); what no door claims, as 'none'. */
export function doorFinder(doors: Door[]): (path: string) => string {
  // A door on a port of its own is not reached through the kernel's server.
  const prefixes = doors
    .filter((door) => door.port === undefined)
    .flatMap((door) => door.urls.map((url) => ({ prefix: url.path.replace(/\/+$/, '').toLowerCase() || '/', door: door.plugin })))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  return (path) => {
    const lower = path.toLowerCase();
    return (
      prefixes.find(({ prefix }) => (prefix === '/' ? lower === '/' : lower === prefix || lower.startsWith(`${prefix}/`)))?.door ?? 'none'
    );
  };
}
