/**
 * The interactive API reference: an HTML page that loads Swagger UI from swagger-ui-dist's files,
 * served by this plugin under the page's own path, and a small initializer script (a file, not an
 * inline script) pointing it at the document. Nothing is fetched from another origin; the page's
 * Content-Security-Policy says so to the browser.
 */

/** The swagger-ui-dist files the page uses, with their content types. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Written by this plugin (not a swagger-ui-dist file): starts Swagger UI on the document. */
export const INITIALIZER = 'objectql-swagger-init.js';

/**
 * Same-origin only. Swagger UI sets inline style attributes and uses data: URIs for its icons
 * (hence those two allowances); scripts come only from this server, and no inline script runs.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** `assetBase`: the page's path without a trailing slash ('' when the page is at '/'). */
export function docsPage(title: string, assetBase: string): string {
  const asset = (name: string) => escapeHtml(`${assetBase}/${name}`);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${escapeHtml(title)} — API reference</title>
  <link rel="stylesheet" href="${asset('swagger-ui.css')}">
  <link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}" sizes="32x32">
  <link rel="icon" type="image/png" href="${asset('favicon-16x16.png')}" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${asset('swagger-ui-bundle.js')}"></script>
  <script src="${asset(INITIALIZER)}"></script>
</body>
</html>
`;
}

/**
 * The initializer script: Swagger UI on the document, no online validator, no standalone top bar.
 * What "Authorize" is given lasts for the tab's session: kept in sessionStorage and restored when
 * the page is opened again in that tab, never written to localStorage (where Swagger UI's own
 * `persistAuthorization` would keep it after the browser closes).
 */
export function initializerScript(documentPath: string): string {
  return `(function () {
  'use strict';
  var KEY = 'objectql:swagger-ui:authorized';
  function saved() {
    try {
      var value = JSON.parse(sessionStorage.getItem(KEY) || 'null');
      return value && typeof value === 'object' ? value : null;
    } catch (e) {
      return null;
    }
  }
  function keep(system) {
    try {
      var authorized = system.authSelectors.authorized().toJS();
      if (Object.keys(authorized).length) sessionStorage.setItem(KEY, JSON.stringify(authorized));
      else sessionStorage.removeItem(KEY);
    } catch (e) {
      // Storage refused (a private window): the authorization lasts until the page is left.
    }
  }
  function SessionAuthorization() {
    var after = function (original, system) {
      return function (payload) {
        var result = original(payload);
        keep(system);
        return result;
      };
    };
    return {
      statePlugins: { auth: { wrapActions: { authorize: after, logout: after } } },
      afterLoad: function (system) {
        var authorized = saved();
        if (authorized) system.authActions.restoreAuthorization({ authorized: authorized });
      },
    };
  }
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentPath)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SessionAuthorization],
    layout: 'BaseLayout',
  });
})();
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
