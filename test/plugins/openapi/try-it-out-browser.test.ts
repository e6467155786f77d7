/**
 * The API reference as a person uses it against a server that asks every request for a credential:
 * headless Chromium opens Swagger UI, "Authorize" offers the credential forms the auth plugin
 * accepts, an API key given there is kept for the tab (sessionStorage, never localStorage) across
 * a reload, and "Try it out" with the document's own examples succeeds for every object of the
 * sample application: its REST list, get and create, and a JSON-RPC count — each answer's status
 * read from the page.
 */
import { expect } from 'chai';
import { chromiumOrSkip, openBrowserPage, type BrowserPage } from '../../helpers/chromium';
import { startServer, type TestServer } from '../../helpers/server';

const ADMIN_KEY = 'swagger-test-key-admin-0001';
const SECRET = 'swagger-test-jwt-secret-of-32-characters-at-least';
/** How long the page may take to show something (a deadline, not a measurement). */
const DEADLINE_MS = 20_000;
const STORAGE_KEY = 'objectql:swagger-ui:authorized';

describe('API reference "Try it out" in a headless browser, authorized with an API key', function () {
  this.timeout(180_000);
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
        auth: { jwt: { secret: SECRET }, apiKeys: [{ key: ADMIN_KEY, user: { id: 'root', roles: ['admin'] } }], sessions: true },
      },
      security: { adminRoles: ['admin'] },
    });
    page = await openBrowserPage(chromium);
  });
  after(async () => {
    await page?.close();
    await s?.stop();
  });

  async function waitFor(expression: string, what: string): Promise<void> {
    const deadline = Date.now() + DEADLINE_MS;
    while (!(await page!.evaluate<boolean>(`!!(${expression})`))) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${DEADLINE_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  /** Sets a React-controlled field as typing would (React reads the native setter's value on 'input' / 'change'). */
  const TYPE_INTO = `function typeInto(el, value) {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  }`;
  const apiKeySection = "[...document.querySelectorAll('.modal-ux .auth-container')].find((c) => c.textContent.includes('X-API-Key'))";

  async function open(): Promise<void> {
    await page!.goto(`${s!.url}/api/objectql/docs`);
    await waitFor("document.querySelectorAll('.swagger-ui .opblock').length", 'Swagger UI rendered the operations');
  }

  /** Expands an operation and presses "Try it out"; its fields are then filled with the document's examples. */
  async function tryItOut(id: string): Promise<string> {
    const op = `document.getElementById(${JSON.stringify(id)})`;
    await waitFor(op, `operation ${id}`);
    if (!(await page!.evaluate<boolean>(`!!${op}.querySelector('.try-out__btn')`))) {
      await page!.evaluate(`${op}.querySelector('.opblock-summary-control').click()`);
      await waitFor(`${op}.querySelector('.try-out__btn')`, `${id} expanded`);
    }
    if (await page!.evaluate<boolean>(`!${op}.querySelector('.execute')`))
      await page!.evaluate(`${op}.querySelector('.try-out__btn').click()`);
    await waitFor(`${op}.querySelector('.execute')`, `${id} ready to execute`);
    return op;
  }

  /**
   * Presses Execute and reads what Swagger UI shows of the answer: its status, and the object it is
   * about (`@type`) — or, when it is not a success, its body.
   */
  async function execute(op: string): Promise<string> {
    const clear = `${op}.querySelector('.btn-clear')`;
    if (await page!.evaluate<boolean>(`!!${clear}`)) await page!.evaluate(`${clear}.click()`);
    await page!.evaluate(`${op}.querySelector('.execute').click()`);
    const status = `${op}.querySelector('.live-responses-table tr.response .response-col_status')`;
    await waitFor(status, 'an answer shown');
    const code = await page!.evaluate<string>(`${status}.textContent.trim()`);
    const body = await page!.evaluate<string>(
      `(${op}.querySelector('.live-responses-table .response-col_description pre') || {}).textContent || ''`,
    );
    if (!/^2\d\d$/.test(code)) return `${code} ${body}`;
    try {
      const type = (JSON.parse(body) as { '@type'?: string })['@type'];
      return type ? `${code} ${type}` : code;
    } catch {
      return code;
    }
  }

  /** Folds an operation away again: Swagger UI re-renders every open one on each change. */
  async function fold(op: string): Promise<void> {
    await page!.evaluate(`${op}.querySelector('.opblock-summary-control').click()`);
  }

  it('offers under "Authorize" the credential forms the auth plugin accepts', async () => {
    await open();
    await page!.evaluate("document.querySelector('.swagger-ui .btn.authorize').click()");
    await waitFor("document.querySelector('.modal-ux .auth-container')", 'the authorization dialog');
    const schemes = await page!.evaluate<string[]>(
      "[...document.querySelectorAll('.modal-ux .auth-container h4 code')].map((c) => c.textContent)",
    );
    expect(schemes).to.deep.equal(['bearerAuth', 'apiKey', 'sessionCookie']);
  });

  it('keeps the API key given there for the tab only (sessionStorage, not localStorage), across a reload', async () => {
    await page!.evaluate(`(() => {
      ${TYPE_INTO}
      const section = ${apiKeySection};
      typeInto(section.querySelector('input'), ${JSON.stringify(ADMIN_KEY)});
      section.querySelector('button[type=submit]').click();
    })()`);
    await waitFor(`${apiKeySection}.textContent.includes('Logout')`, 'the key authorized');
    await page!.evaluate("document.querySelector('.modal-ux .btn-done').click()");
    const stored = await page!.evaluate<{ session: string | null; local: string }>(
      `({ session: sessionStorage.getItem('${STORAGE_KEY}'), local: JSON.stringify(localStorage) })`,
    );
    expect(JSON.parse(stored.session!).apiKey.value).to.equal(ADMIN_KEY);
    expect(stored.local).to.not.include(ADMIN_KEY);

    await open();
    await waitFor("document.querySelector('.swagger-ui .btn.authorize.locked')", 'the authorization restored after the reload');
  });

  it('"Try it out" succeeds for every object with the examples: REST list, get and create, JSON-RPC count', async () => {
    const objects = s!.kernel.registry.objects().map((o) => o.name);
    expect(objects).to.include.members(['account', 'contact', 'expense', 'milestone', 'project', 'task']);
    const seen: Record<string, Record<string, string>> = {};
    const expected: Record<string, Record<string, string>> = {};
    for (const object of objects) {
      const tag = await page!.evaluate<string>(
        `[...document.querySelectorAll('.opblock')].map((e) => e.id).find((id) => id.endsWith('-rest_list_${object}')).slice('operations-'.length, -'-rest_list_${object}'.length)`,
      );
      const id = (op: string) => `operations-${tag}-rest_${op}_${object}`;
      seen[object] = {};
      for (const [op, success] of [
        ['list', '200'],
        ['get', `200 ${object}`],
        ['create', `201 ${object}`],
      ]) {
        const block = await tryItOut(id(op));
        seen[object][op] = await execute(block);
        await fold(block);
        expected[object] = { ...expected[object], [op]: success };
      }
      expected[object].count = `200 ${object}`;
    }
    // One route for every object: the count example, its object changed as a person would.
    const rpc = await tryItOut('operations-JSON-RPC-rpc');
    await page!.evaluate(`(() => { ${TYPE_INTO} typeInto(${rpc}.querySelector('.examples-select-element'), 'count'); })()`);
    await waitFor(`${rpc}.querySelector('textarea.body-param__text').value.includes('"count"')`, 'the count example chosen');
    for (const object of objects) {
      await page!.evaluate(`(() => {
        ${TYPE_INTO}
        typeInto(${rpc}.querySelector('textarea.body-param__text'), ${JSON.stringify(JSON.stringify({ op: 'count', object, args: {} }, null, 2))});
      })()`);
      seen[object].count = await execute(rpc);
    }
    await page!.screenshot('swagger-ui-try-it-out');
    expect(seen).to.deep.equal(expected);
  });
});
