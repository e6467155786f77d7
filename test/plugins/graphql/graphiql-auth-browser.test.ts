/**
 * GraphiQL as a person uses it against a server that asks every request for a credential: headless
 * Chromium opens the page, which says a credential is needed; an API key typed into the page's
 * credential bar is sent with every query (the answer is that user's records), is kept for the tab
 * (sessionStorage, never localStorage) across a reload, and authenticates a subscription over
 * graphql-ws, whose event for a change made through REST by another client shows in the page.
 */
import { expect } from 'chai';
import { chromiumOrSkip, openBrowserPage, type BrowserPage } from '../../helpers/chromium';
import { startServer, type TestServer } from '../../helpers/server';

const ALICE_KEY = 'graphiql-test-key-alice-0001';
const CAROL_KEY = 'graphiql-test-key-carol-0001';
const ALICE_PROJECTS = ['Apollo Website Relaunch', 'Mercury Ledger Migration'];
/** How long the page may take to show something (a deadline, not a measurement). */
const DEADLINE_MS = 20_000;

describe('GraphiQL in a headless browser, authenticated from the page', function () {
  this.timeout(90_000);
  let s: TestServer | undefined;
  let page: BrowserPage | undefined;

  before(async function () {
    const chromium = chromiumOrSkip(this);
    s = await startServer({
      plugins: {
        rpc: true,
        rest: true,
        graphql: true,
        openapi: true,
        auth: {
          apiKeys: [
            { key: ALICE_KEY, user: { id: 'alice', roles: ['member'] } },
            { key: CAROL_KEY, user: { id: 'carol', roles: ['manager'] } },
          ],
        },
      },
    });
    page = await openBrowserPage(chromium);
  });
  after(async () => {
    await page?.close();
    await s?.stop();
  });

  /** Resolves once `expression` is truthy in the page; fails naming `what` after the deadline. */
  async function waitFor(expression: string, what: string): Promise<void> {
    const deadline = Date.now() + DEADLINE_MS;
    while (!(await page!.evaluate<boolean>(`!!(${expression})`))) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${DEADLINE_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const QUERY_EDITOR = "document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror";
  const RESPONSE = "document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()";
  const status = () => page!.evaluate<string>("document.getElementById('objectql-credential-status').textContent");

  async function open(): Promise<void> {
    await page!.goto(`${s!.url}/api/graphql`);
    await waitFor("document.querySelector('.graphiql-query-editor .CodeMirror')", 'GraphiQL rendered');
  }

  /** Types `query` into the editor, waits until GraphiQL has parsed it (it does so a moment after a change), and runs it. */
  async function run(query: string): Promise<void> {
    await page!.evaluate(`${QUERY_EDITOR}.setValue(${JSON.stringify(query)})`);
    await waitFor(`(${QUERY_EDITOR}.documentAST || {loc: {source: {}}}).loc.source.body === ${JSON.stringify(query)}`, 'query parsed');
    await page!.evaluate("document.querySelector('.graphiql-response .CodeMirror').CodeMirror.setValue('')");
    await page!.evaluate("document.querySelector('.graphiql-execute-button').click()");
  }

  /** The response pane as JSON, once it shows one that `accept` takes. */
  async function response(accept: (body: any) => boolean, what: string): Promise<any> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const text = await page!.evaluate<string>(RESPONSE);
      try {
        const body = JSON.parse(text);
        if (accept(body)) return body;
      } catch {
        // not yet a whole JSON document
      }
      if (Date.now() > deadline) throw new Error(`${what}: the response pane shows ${text.slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function useKey(key: string): Promise<void> {
    await page!.evaluate(`(() => {
      document.getElementById('objectql-credential-kind').value = 'apiKey';
      document.getElementById('objectql-credential-value').value = ${JSON.stringify(key)};
      document.getElementById('objectql-credential-use').click();
    })()`);
  }

  it('opens saying a credential is needed, then answers as the user of the API key entered in the page', async () => {
    await open();
    await waitFor("/401/.test(document.getElementById('objectql-credential-status').textContent)", 'the bar asks for a credential');
    // GraphiQL's own introspection was refused: the pane shows why.
    expect(await page!.evaluate<string>(RESPONSE)).to.include('UNAUTHORIZED');

    await useKey(ALICE_KEY);
    expect(await status()).to.match(/Sending an API key/);
    // The key never shows on screen: the field is a password field, emptied once used.
    expect(await page!.evaluate<string>("document.getElementById('objectql-credential-value').type")).to.equal('password');
    expect(await page!.evaluate<string>("document.getElementById('objectql-credential-value').value")).to.equal('');

    await run('{ projectList(sort: "name") { name owner } }');
    const body = await response((b) => b.data || b.errors, 'the query');
    expect(body).to.deep.equal({ data: { projectList: ALICE_PROJECTS.map((name) => ({ name, owner: 'alice' })) } });
    await page!.screenshot('graphiql-query');
  });

  it('keeps the key for the tab (sessionStorage, not localStorage) and sends it again after a reload', async () => {
    const stored = await page!.evaluate<{ session: string | null; local: string }>(
      "({ session: sessionStorage.getItem('objectql:graphiql:credential'), local: JSON.stringify(localStorage) })",
    );
    expect(JSON.parse(stored.session!)).to.deep.equal({ kind: 'apiKey', value: ALICE_KEY });
    expect(stored.local).to.not.include(ALICE_KEY);

    await open();
    expect(await status()).to.match(/Sending an API key/);
    await run('{ projectCount }');
    expect(await response((b) => b.data || b.errors, 'the count')).to.deep.equal({ data: { projectCount: ALICE_PROJECTS.length } });
  });

  it('runs a subscription over graphql-ws with the key, and shows the event of a change made through REST', async () => {
    const openSubscriptions = () => s!.kernel.resolve('graphqlSubscriptions').open;
    const before = openSubscriptions();
    await run('subscription { projectCreated { name owner } }');
    const deadline = Date.now() + DEADLINE_MS;
    while (openSubscriptions() === before) {
      if (Date.now() > deadline) throw new Error(`no subscription started; the pane shows ${await page!.evaluate<string>(RESPONSE)}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // Another client, another user: Carol creates one project for Alice and one for Bob.
    for (const owner of ['bob', 'alice']) {
      const res = await s!.request('POST', '/api/data/project', { name: `Made for ${owner}`, owner }, { 'X-API-Key': CAROL_KEY });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    // Alice hears of hers only.
    const event = await response((b) => b.data?.projectCreated, 'the subscription event');
    expect(event).to.deep.equal({ data: { projectCreated: { name: 'Made for alice', owner: 'alice' } } });
    await page!.screenshot('graphiql-subscription');
    await page!.evaluate("document.querySelector('.graphiql-execute-button').click()"); // stop
  });

  it('"Forget" drops the key: the next request goes without one and is refused', async () => {
    await page!.evaluate("document.getElementById('objectql-credential-forget').click()");
    expect(await page!.evaluate<string | null>("sessionStorage.getItem('objectql:graphiql:credential')")).to.equal(null);
    await run('{ projectCount }');
    const body = await response((b) => b.errors, 'the refusal');
    expect(body.errors[0].extensions.code).to.equal('UNAUTHORIZED');
    await waitFor("/401/.test(document.getElementById('objectql-credential-status').textContent)", 'the bar asks for a credential');
  });
});
