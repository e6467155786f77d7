/**
 * Studio's one HTML page, served for every path under the console's (the app routes in the
 * browser): the built script and stylesheet, and the settings the app reads — where the APIs are.
 * The Content-Security-Policy lets the page load its own files and talk to its own origin only.
 */
import type { StudioManifest } from './assets';
import type { StudioEndpoints } from './endpoints';

export const STUDIO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Thumbnails and previews come from the File API; a picked image is previewed from a blob: URL.
  "img-src 'self' blob: data:",
  // 'self' covers the same origin's ws:// and wss:// (CSP Level 3).
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface StudioPageSettings {
  title: string;
  /** The console's path as served, e.g. '/studio'. */
  base: string;
  api: StudioEndpoints;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside <script>: no `<` can end the element early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function studioPage(manifest: StudioManifest, settings: StudioPageSettings): string {
  const asset = (file: string) => `${settings.base}/assets/${file}`;
  const preload = manifest.preload.map((f) => `  <link rel="modulepreload" href="${escapeHtml(asset(f))}">\n`).join('');
  const css = manifest.css ? `  <link rel="stylesheet" href="${escapeHtml(asset(manifest.css))}">\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="same-origin">
  <title>${escapeHtml(settings.title)}</title>
  <link rel="icon" href="data:,">
${css}${preload}  <script type="module" src="${escapeHtml(asset(manifest.entry))}"></script>
  <script type="application/json" id="studio-settings">${scriptJson(settings)}</script>
</head>
<body>
  <div id="studio"><noscript>Studio needs JavaScript.</noscript></div>
</body>
</html>
`;
}
