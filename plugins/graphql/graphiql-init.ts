/**
 * What the GraphiQL page adds to GraphiQL (graphiql.ts serves them): the credential bar above it,
 * the page's own stylesheet, and the initializer script that starts GraphiQL and wires the bar.
 * The initializer is a file of its own, so the page runs no inline script.
 */

/**
 * The credential bar: an API key or a Bearer token for GraphiQL to send (the initializer wires it).
 * A password field, so the secret is not shown on screen.
 */
export const CREDENTIALS_FORM = `  <form id="objectql-credentials" class="objectql-credentials" autocomplete="off">
    <label for="objectql-credential-kind">Credential</label>
    <select id="objectql-credential-kind">
      <option value="apiKey">API key (X-API-Key)</option>
      <option value="bearer">Bearer token (Authorization)</option>
    </select>
    <input id="objectql-credential-value" type="password" aria-label="API key or token" placeholder="paste an API key or a token" autocomplete="off" spellcheck="false">
    <button type="submit" id="objectql-credential-use">Use</button>
    <button type="button" id="objectql-credential-forget">Forget</button>
    <span id="objectql-credential-status" role="status"></span>
  </form>
`;

/**
 * The initializer: GraphiQL on the endpoint (same origin, so cookies go along), in a React 18
 * root, with the bar's credential as headers on every request and as the subscriptions'
 * connection parameters; GraphiQL's headers editor can add or override headers. Changing the
 * credential renders GraphiQL with a new fetcher, so the schema is introspected again.
 */
export function graphiqlInitializer(endpoint: string, subscriptions = true): string {
  // The endpoint with the ws scheme, on the host the page was loaded from.
  const subscriptionUrl = subscriptions
    ? `(location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + ${JSON.stringify(endpoint)}`
    : 'undefined';
  return `(function () {
  'use strict';
  var subscriptionUrl = ${subscriptionUrl};
  // The tab's session only: a credential never goes to localStorage.
  var KEY = 'objectql:graphiql:credential';
  var form = document.getElementById('objectql-credentials');
  var kind = document.getElementById('objectql-credential-kind');
  var input = document.getElementById('objectql-credential-value');
  var status = document.getElementById('objectql-credential-status');
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));

  function load() {
    try {
      var c = JSON.parse(sessionStorage.getItem(KEY) || 'null');
      return c && (c.kind === 'apiKey' || c.kind === 'bearer') && typeof c.value === 'string' && c.value ? c : null;
    } catch (e) {
      return null;
    }
  }
  function store(c) {
    try {
      if (c) sessionStorage.setItem(KEY, JSON.stringify(c));
      else sessionStorage.removeItem(KEY);
    } catch (e) {
      // Storage refused (a private window): the credential lasts until the page is left.
    }
  }
  function headersOf(c) {
    if (!c) return {};
    return c.kind === 'bearer' ? { Authorization: 'Bearer ' + c.value } : { 'X-API-Key': c.value };
  }
  function say(text, refused) {
    status.textContent = text;
    status.className = refused ? 'refused' : '';
  }
  function fetcherFor(c) {
    var headers = headersOf(c);
    return GraphiQL.createFetcher({
      url: ${JSON.stringify(endpoint)},
      subscriptionUrl: subscriptionUrl,
      headers: headers,
      wsConnectionParams: headers,
      fetch: function (url, init) {
        return window.fetch(url, init).then(function (res) {
          if (res.status === 401) say('The server asks for a credential (401): enter an API key or a Bearer token.', true);
          return res;
        });
      },
    });
  }
  function use(c) {
    store(c);
    say(c ? 'Sending ' + (c.kind === 'bearer' ? 'a Bearer token' : 'an API key') + ', kept for this tab only.' : 'No credential sent.', false);
    root.render(React.createElement(GraphiQL, { fetcher: fetcherFor(c), defaultEditorToolsVisibility: true }));
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var value = input.value.trim();
    if (kind.value === 'bearer') value = value.replace(/^Bearer\\s+/i, '');
    input.value = '';
    use(value ? { kind: kind.value, value: value } : null);
  });
  document.getElementById('objectql-credential-forget').addEventListener('click', function () {
    input.value = '';
    use(null);
  });
  var saved = load();
  if (saved) kind.value = saved.kind;
  use(saved);
})();
`;
}

export const PAGE_CSS = `html, body { height: 100%; margin: 0; overflow: hidden; }
body { display: flex; flex-direction: column; }
.objectql-credentials { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; padding: 0.4rem 0.75rem;
  border-bottom: 1px solid #d0d4da; font: 0.875rem system-ui, sans-serif; }
.objectql-credentials input { flex: 0 1 24rem; min-width: 10rem; }
#objectql-credential-status { color: #4a5260; }
#objectql-credential-status.refused { color: #b3261e; }
#graphiql { flex: 1; min-height: 0; }
`;
