/**
 * What `objectql serve` prints once the server is up, for the person who started it: the URL and
 * one line per door (the landing page's list), and in development how to authenticate. Written to
 * stdout beside the JSON log, so only where a person reads it: a terminal, or NODE_ENV=development;
 * never in production, whose output stays JSON lines.
 */
import { absoluteUrl, describeServer, type Door, type DoorUrl, type Kernel } from '../server';

export interface BannerContext {
  env: string | undefined;
  stdoutIsTTY: boolean;
}

export function wantsBanner({ env, stdoutIsTTY }: BannerContext): boolean {
  return env !== 'production' && (stdoutIsTTY || env === 'development');
}

export function startupBanner(kernel: Kernel, options: { development: boolean; configFile?: string }): string {
  const origin = kernel.http.url;
  const description = describeServer(kernel, options);
  const pluginWidth = Math.max(...description.doors.map((d) => d.plugin.length));
  const protocolWidth = Math.max(...description.doors.map((d) => (d.protocol ?? '').length));
  const lines = [`ObjectQL is listening on ${origin}; its doors (also at ${origin}${kernel.http.path('/')}):`];
  for (const door of description.doors) {
    const urls = door.urls.map((url) => shown(origin, door, url)).join('  ');
    lines.push(`  ${door.plugin.padEnd(pluginWidth)}  ${(door.protocol ?? '').padEnd(protocolWidth)}  ${urls}`);
  }
  const auth = description.authentication;
  if (auth) {
    lines.push(
      `Authenticate (development): ${auth.send.join(', or ')}; credentials are ${auth.required ? 'required' : 'optional'}. ` +
        `Keys and secrets: ${auth.configuredIn}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function shown(origin: string, door: Door, url: DoorUrl): string {
  const full = absoluteUrl(origin, door, url);
  if (url.kind === 'prefix') return `${full}/…`;
  if (url.kind === 'endpoint') return `${url.methods?.join(',') ?? ''} ${full}`.trim();
  return full;
}
