/**
 * GET / (under the base path): the doors this server serves, for whoever opens it. A browser gets a
 * small HTML page — links to what it can open, WebSocket URLs, route prefixes — and any other
 * client `{name, basePath?, doors, authentication?}` as JSON. Public, like /health and the
 * discovery route; in development it also says how to authenticate, never with a credential.
 * Config `landingPage: false` turns it off.
 */
import { createHash } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import type { Kernel } from '../kernel';
import { absoluteUrl, describeServer, servesGet, type Door, type DoorUrl, type ServerDescription } from './doors';

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; color: #1f2328; max-width: 64rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 0.25rem; }
h2 { font-size: 1.1rem; margin: 2rem 0 0.5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.4rem 0.6rem; border-bottom: 1px solid #d1d9e0; }
ul { list-style: none; margin: 0; padding: 0; }
code { font: 13px ui-monospace, monospace; background: #f6f8fa; padding: 0 0.25rem; border-radius: 3px; }
.note { color: #59636e; font-size: 13px; }
`;

/** Nothing loads and nothing runs: the one inline style element is allowed by its hash (no 'unsafe-inline'). */
const LANDING_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** 'X-API-Key: <key>': shown as code; other ways to authenticate are prose. */
const HEADER_LINE = /^[A-Za-z-]+: /;

/** Mounts the page at the base path's root, unless the config turns it off. */
export function mountLanding(app: Express, kernel: Kernel): void {
  if (!kernel.config.landingPage) return;
  const development = process.env.NODE_ENV === 'development';
  const at = kernel.http.path('/');
  app.get(at, (req: Request, res: Response, next) => {
    const capabilities = kernel.hooks.capabilities.call([]);
    // A plugin that lists a GET here serves this path itself (through authentication, if it is not public).
    if (servesGet(capabilities, at)) return next();
    const description = describeServer(kernel, { development, capabilities });
    res.set({ 'Cache-Control': 'no-cache', Vary: 'Accept' });
    if (req.accepts(['application/json', 'text/html']) !== 'text/html') {
      res.json(description);
      return;
    }
    res
      .set('Content-Security-Policy', LANDING_CSP)
      .type('html')
      .send(landingPage(description, originOf(req)));
  });
}

/** The page's own origin, for WebSocket URLs and doors on another port; undefined when the Host header is no host. */
function originOf(req: Request): string | undefined {
  try {
    return new URL(`${req.protocol}://${req.get('host') ?? ''}`).origin;
  } catch {
    return undefined;
  }
}

export function landingPage(description: ServerDescription, origin: string | undefined): string {
  const rows = description.doors
    .map(
      (door) =>
        `<tr><td>${escapeHtml(door.plugin)}</td><td>${escapeHtml(door.protocol ?? '')}</td><td><ul>${door.urls
          .map((url) => `<li>${urlItem(door, url, origin)}</li>`)
          .join('')}</ul></td></tr>`,
    )
    .join('\n');
  const auth = description.authentication;
  const authSection = auth
    ? `<h2>Authentication (development)</h2>
<p>${auth.required ? 'Every data route needs credentials' : 'Credentials are optional'}; send one of:</p>
<ul>${auth.send.map((s) => `<li>${HEADER_LINE.test(s) ? `<code>${escapeHtml(s)}</code>` : escapeHtml(s)}</li>`).join('')}</ul>
<p class="note">The keys and secrets are in ${escapeHtml(auth.configuredIn)}; this page never shows them.</p>`
    : '';
  const base = description.basePath ?? '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>ObjectQL</title>
<style>${STYLE}</style>
</head>
<body>
<h1>ObjectQL</h1>
<p class="note">What this server serves${base ? ` under <code>${escapeHtml(base)}</code>` : ''}. The same list as JSON: ask this page with <code>Accept: application/json</code>; for programs, <a href="${escapeHtml(`${base}/.well-known/objectql`)}">${escapeHtml(`${base}/.well-known/objectql`)}</a>.</p>
<table>
<thead><tr><th>plugin</th><th>protocol</th><th>where</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
${authSection}
</body>
</html>
`;
}

function urlItem(door: Door, url: DoorUrl, origin: string | undefined): string {
  const full = origin ? absoluteUrl(origin, door, url) : url.path;
  // On the kernel's server a path is enough; a door on a port of its own needs the whole URL.
  const shown = door.port === undefined ? url.path : full;
  const methods = url.methods?.join(' ') ?? '';
  const item = (html: string, ...notes: Array<string | undefined>) => {
    const said = notes.filter(Boolean).join(', ');
    return said ? `${html} <span class="note">${escapeHtml(said)}</span>` : html;
  };
  switch (url.kind) {
    case 'page':
      return item(`<a href="${escapeHtml(shown)}">${escapeHtml(shown)}</a>`, methods === 'GET' ? undefined : methods, url.label);
    case 'websocket':
      return item(`<code>${escapeHtml(full)}</code>`, 'WebSocket', url.label);
    case 'prefix':
      return item(`<code>${escapeHtml(shown)}/…</code>`, url.label);
    case 'endpoint':
      return item(`<code>${escapeHtml(`${methods} ${shown}`.trim())}</code>`, url.label);
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
