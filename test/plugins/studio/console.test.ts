/**
 * Studio as people use it, in headless Chromium (playwright-core) against the sample application
 * (its metadata, SQLite and local file storage in a temporary folder, its API keys, sessions,
 * files, realtime): a member (alice) signs in and works within her scope, sees another client's
 * change arrive live, and never receives a hidden field (project.actual_cost) or a project she
 * does not own, in any response or page; an admin lists, sorts, filters and pages, creates a
 * record through a validation error, edits it, uploads an attachment, runs a record and a global
 * action and deletes. Every page visited is checked with axe-core (no serious or critical
 * violation) and saved as a screenshot (os.tmpdir()/objectql-screenshots/studio-*.png).
 * Needs dist/studio: `node scripts/build-studio.mjs`.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { seriousViolations } from '../../helpers/axe';
import { chromiumOrSkip, openBrowserPage, type BrowserPage } from '../../helpers/chromium';
import { SAMPLE_METADATA, startServer, type TestServer } from '../../helpers/server';

const KEYS = { alice: 'dev-key-alice-0001', carol: 'dev-key-carol-0001', admin: 'dev-key-admin-0001' };
/** How long the page may take to show something (a deadline, not a measurement). */
const DEADLINE_MS = 15_000;
/** Extra projects owned by root: a second page for the admin, more records alice must never see. */
const BULK = Array.from({ length: 11 }, (_, i) => `Bulk Project ${String(i + 1).padStart(2, '0')}`);
/** What alice (member) must never receive: the hidden field, and projects she does not own. */
const HIDDEN_FIELD = ['actual_cost', 'Actual Cost'];
const OUT_OF_SCOPE = ['prj-gemini', 'Gemini Plant Monitoring', 'Gemini Renamed Elsewhere', ...BULK];
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('Studio in a headless browser, on the sample application', function () {
  this.timeout(120_000);
  let s: TestServer | undefined;
  let browser: BrowserPage | undefined;
  let page: Page;
  let dir: string;
  const previousEnv = process.env.NODE_ENV;

  /** Axe's serious and critical violations, by page visited. */
  const a11y = new Map<string, string[]>();
  /** While alice is signed in: every response body and WebSocket frame the page received, and the DOM of every page. */
  let watching = false;
  const received: Array<Promise<string>> = [];
  const doms: string[] = [];

  before(async function () {
    const chromium = chromiumOrSkip(this);
    process.env.NODE_ENV = 'test';
    dir = mkdtempSync(join(tmpdir(), 'objectql-studio-'));
    s = await startServer({
      metadata: [SAMPLE_METADATA],
      datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'objectql.sqlite') } } },
      plugins: {
        rpc: true,
        rest: true,
        'metadata-api': true,
        files: { storage: { type: 'local', baseDir: join(dir, 'uploads') } },
        realtime: true,
        auth: {
          apiKeys: [
            { key: KEYS.alice, user: { id: 'alice', roles: ['member'] } },
            { key: KEYS.carol, user: { id: 'carol', roles: ['manager'] } },
            { key: KEYS.admin, user: { id: 'root', roles: ['admin'] } },
          ],
          sessions: true,
        },
        studio: true,
      },
      security: { adminRoles: ['admin'], allowBodyUser: true },
    });
    for (const name of BULK) ok(await rest('POST', '/api/data/project', { name, owner: 'root', budget: 1000 }, KEYS.admin), 201);
    browser = await openBrowserPage(chromium);
    page = browser.page;
    page.setDefaultTimeout(DEADLINE_MS);
    page.on('response', (response) => {
      if (!watching) return;
      received.push(
        response.text().then(
          (text) => `${response.url()}\n${text}`,
          () => `${response.url()}\n`,
        ),
      );
    });
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        if (watching) received.push(Promise.resolve(`${ws.url()}\n${String(frame.payload)}`));
      }),
    );
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.env.NODE_ENV = previousEnv;
  });

  // ---- helpers -----------------------------------------------------------------------------------

  async function rest(method: string, path: string, body: unknown, key: string) {
    return s!.request(method, path, body, { 'x-api-key': key });
  }
  function ok(res: { status: number; body: any }, status = 200): any {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    return res.body;
  }

  /** Resolves with `probe`'s value once `accept` takes it; fails naming `what` (and the last value) after the deadline. */
  async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const value = await probe();
      if (accept(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${DEADLINE_MS} ms (last: ${JSON.stringify(value)})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The page as it stands: checked with axe, saved as a screenshot, its DOM kept while alice is signed in. */
  async function visited(name: string): Promise<void> {
    // Loaded: no "Loading …" status left (a page may keep an empty status line for its announcements).
    await page.waitForFunction(
      `![...document.querySelectorAll('[role="status"]')].some((e) => e.textContent.startsWith('Loading'))`,
      undefined,
      { timeout: DEADLINE_MS },
    );
    a11y.set(name, await seriousViolations(page));
    await browser!.screenshot(`studio-${name}`);
    if (watching) doms.push(`${name}\n${await page.content()}\n${await page.locator('body').innerText()}`);
  }

  const grid = () => page.locator('table.grid');
  const firstColumn = () => grid().locator('tbody tr td:first-child').allInnerTexts();
  const studioUrl = (path = '') => `${s!.url}/studio${path}`;

  async function signIn(key: string, who: string): Promise<void> {
    await browser!.goto(studioUrl());
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('user-name').filter({ hasText: who }).waitFor();
  }

  async function signOut(): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }

  async function openList(object: string): Promise<void> {
    await browser!.goto(studioUrl(`/o/${object}`));
    await grid().waitFor();
  }

  async function openRecord(object: string, id: string): Promise<void> {
    await browser!.goto(studioUrl(`/o/${object}/r/${id}`));
    await page.getByRole('button', { name: 'Save' }).waitFor();
  }

  /** The form control of a field, by its label (a required field's label ends with " *", drawn by CSS). */
  const control = (label: string): Locator => page.getByLabel(new RegExp(`^${label}( \\*)?$`));

  // ---- a member ----------------------------------------------------------------------------------

  describe('a restricted user (alice, member)', () => {
    before(() => {
      watching = true;
    });

    it('the sign-in page refuses a wrong key, then signs alice in', async () => {
      await browser!.goto(studioUrl());
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await page.title()).to.match(/Sign in/);
      await visited('sign-in');
      await page.getByLabel('API key', { exact: true }).fill('not-a-key-0000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'That credential was not accepted.' }).waitFor();
      // The credential is typed into a password field: never shown.
      expect(await page.getByLabel('API key', { exact: true }).getAttribute('type')).to.equal('password');

      await page.getByLabel('API key', { exact: true }).fill(KEYS.alice);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('user-name').filter({ hasText: 'alice' }).waitFor();
      expect(await page.getByTestId('user-roles').innerText()).to.equal('member');
      await page.getByRole('heading', { name: 'Objects', level: 1 }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Objects' });
      await nav.getByRole('link', { name: /^Project/ }).waitFor();
      // Members may not read expenses: the object is not offered.
      expect(await nav.getByRole('link', { name: /^Expense/ }).count()).to.equal(0);
      await visited('home-alice');
    });

    it('lists only her projects, without the hidden column', async () => {
      await page
        .getByRole('navigation', { name: 'Objects' })
        .getByRole('link', { name: /^Project/ })
        .first()
        .click();
      await grid().waitFor();
      const names = await until(firstColumn, (n) => n.length === 2, 'alice sees her two projects');
      expect([...names].sort()).to.deep.equal(['Apollo Website Relaunch', 'Mercury Ledger Migration']);
      const headers = await grid().getByRole('columnheader').allInnerTexts();
      expect(headers.join('|')).to.include('Project Name').and.not.include('Actual Cost');
      expect(await grid().locator('caption').innerText()).to.match(/Project/);
      await visited('list-alice');
    });

    it("sees another client's change appear in the list, and never a change out of her scope", async () => {
      // Carol (manager) renames alice's project and bob's, through REST.
      ok(await rest('PATCH', '/api/data/project/prj-gemini', { name: 'Gemini Renamed Elsewhere', actual_cost: 99 }, KEYS.carol));
      ok(await rest('PATCH', '/api/data/project/prj-apollo', { name: 'Apollo Renamed Live' }, KEYS.carol));
      await grid().getByRole('link', { name: 'Apollo Renamed Live' }).waitFor();
      expect(await firstColumn()).to.have.length(2);
    });

    it("opens her record without the hidden field, and sees another client's change live", async () => {
      await grid().getByRole('link', { name: 'Apollo Renamed Live' }).click();
      await page.getByRole('button', { name: 'Save' }).waitFor();
      expect(await control('Project Name').inputValue()).to.equal('Apollo Renamed Live');
      expect(await page.getByLabel('Actual Cost').count()).to.equal(0);
      await visited('record-alice');

      ok(await rest('PATCH', '/api/data/project/prj-apollo', { name: 'Apollo Renamed Twice' }, KEYS.carol));
      await until(
        () => control('Project Name').inputValue(),
        (v) => v === 'Apollo Renamed Twice',
        'the record page shows the new name',
      );
    });

    it('opens the new-record form without the hidden field', async () => {
      await browser!.goto(studioUrl('/o/project/new'));
      await page.getByRole('button', { name: 'Create' }).waitFor();
      await control('Project Name').waitFor();
      expect(await page.getByLabel('Actual Cost').count()).to.equal(0);
      await visited('new-alice');
    });

    it('filters and searches within her scope', async () => {
      await openList('project');
      await page.getByRole('button', { name: 'Add condition' }).click();
      // The hidden field is not offered as a filter.
      const fieldChoices = await page.getByLabel('Field of condition 1').locator('option').allInnerTexts();
      expect(fieldChoices).to.include('Project Name').and.not.include('Actual Cost');
      await page.getByLabel('Remove condition 1').click();
      await page.getByLabel('Search', { exact: true }).fill('Gemini');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await until(firstColumn, (n) => n.length === 0, 'no project of hers matches Gemini');
    });

    it('reads the metadata pages without the hidden field', async () => {
      await browser!.goto(studioUrl('/meta'));
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await visited('metadata-alice');
      await browser!.goto(studioUrl('/meta/project'));
      await page.getByText('Project Name').first().waitFor();
      await visited('metadata-project-alice');
      await signOut();
      watching = false;
    });

    it('never received the hidden field nor a record out of her scope, in any response or page', async () => {
      const texts = [...(await Promise.all(received)), ...doms];
      expect(texts.length).to.be.above(10);
      // The live channel was watched too: its frames are among the texts.
      expect(texts.some((t) => t.startsWith('ws://') && t.includes('"change"'))).to.equal(true);
      const leaks: string[] = [];
      for (const text of texts) {
        for (const secret of [...HIDDEN_FIELD, ...OUT_OF_SCOPE]) {
          if (text.includes(secret))
            leaks.push(
              `${secret} in ${text.split('\n')[0]}: …${text.slice(Math.max(0, text.indexOf(secret) - 150), text.indexOf(secret) + 100)}…`,
            );
        }
      }
      expect(leaks, leaks.join('\n')).to.deep.equal([]);
    });
  });

  // ---- an admin ----------------------------------------------------------------------------------

  describe('a full user (admin)', () => {
    let created: string | undefined;
    const ALL = () => ['Apollo Renamed Twice', 'Gemini Renamed Elsewhere', 'Mercury Ledger Migration', ...BULK];

    before(async () => {
      await signIn(KEYS.admin, 'root');
      await visited('home-admin');
    });

    it('lists every project and sorts by a column, ascending then descending', async () => {
      await openList('project');
      await page.getByRole('combobox', { name: /Rows per page/ }).selectOption('100');
      await until(firstColumn, (n) => n.length === ALL().length, 'every project listed');
      const header = grid().getByRole('columnheader', { name: /Project Name/ });
      await header.getByRole('button').click();
      const ascending = [...ALL()].sort();
      await until(firstColumn, (n) => JSON.stringify(n) === JSON.stringify(ascending), 'sorted by name, ascending');
      expect(await header.getAttribute('aria-sort')).to.equal('ascending');
      await header.getByRole('button').click();
      await until(firstColumn, (n) => JSON.stringify(n) === JSON.stringify([...ascending].reverse()), 'sorted by name, descending');
      expect(await header.getAttribute('aria-sort')).to.equal('descending');
      await visited('list-admin');
    });

    it('pages through the list', async () => {
      await page.getByRole('combobox', { name: /Rows per page/ }).selectOption('10');
      const first = await until(firstColumn, (n) => n.length === 10, 'a page of ten');
      await page.getByText(/Page 1 of 2/).waitFor();
      expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).to.equal(true);
      await page.getByRole('button', { name: 'Next page' }).click();
      const second = await until(firstColumn, (n) => n.length === ALL().length - 10, 'the second page');
      await page.getByText(/Page 2 of 2/).waitFor();
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).to.equal(true);
      expect([...first, ...second].sort()).to.deep.equal([...ALL()].sort());
      await page.getByRole('button', { name: 'Previous page' }).click();
      await until(firstColumn, (n) => JSON.stringify(n) === JSON.stringify(first), 'back on the first page');
    });

    it('filters with the filter builder, and searches', async () => {
      await openList('project');
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByLabel('Field of condition 1').selectOption({ label: 'Status' });
      await page.getByLabel('Operator of condition 1').selectOption({ label: 'is' });
      await page.getByLabel('Value of condition 1').selectOption('done');
      await until(firstColumn, (n) => JSON.stringify(n) === JSON.stringify(['Mercury Ledger Migration']), 'only the done project');
      await visited('list-admin-filtered');
      await page.getByLabel('Remove condition 1').click();
      await page.getByLabel('Search', { exact: true }).fill('Bulk Project 1');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await until(
        firstColumn,
        (n) => JSON.stringify([...n].sort()) === JSON.stringify(['Bulk Project 10', 'Bulk Project 11']),
        'the search matches',
      );
    });

    it('creates a record: a validation error is shown, fixed, and the record saved', async () => {
      await openList('project');
      await page.getByRole('link', { name: 'New Project' }).click();
      await page.getByRole('button', { name: 'Create' }).waitFor();
      await visited('new-admin');
      await control('Project Name').fill('Studio Test Project');
      await control('Budget').fill('20000000');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByText('Budgets above 10,000,000 need a separate approval.').first().waitFor();
      expect(page.url()).to.match(/\/studio\/o\/project\/new$/);
      await visited('new-admin-invalid');
      await control('Budget').fill('5000');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.waitForURL(/\/studio\/o\/project\/r\/[^/]+$/, { timeout: DEADLINE_MS });
      created = decodeURIComponent(page.url().split('/r/')[1]);
      const record = ok(await rest('GET', `/api/data/project/${created}`, undefined, KEYS.admin));
      expect(record).to.include({ name: 'Studio Test Project', budget: 5000 });
    });

    it('edits the record', async () => {
      await openRecord('project', created!);
      await visited('record-admin');
      await control('Budget').fill('6000');
      await page.getByRole('button', { name: 'Save' }).click();
      await until(
        async () => (await rest('GET', `/api/data/project/${created}`, undefined, KEYS.admin)).body?.budget,
        (b) => b === 6000,
        'the edit saved',
      );
    });

    it("sees another client's change on the record page", async () => {
      ok(await rest('PATCH', `/api/data/project/${created}`, { name: 'Studio Test Project Renamed' }, KEYS.carol));
      await until(
        () => control('Project Name').inputValue(),
        (v) => v === 'Studio Test Project Renamed',
        'the new name shown',
      );
    });

    it('uploads an attachment to an expense and shows it', async () => {
      await openRecord('expense', 'exp-apollo-travel');
      await control('Receipt').setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: PNG });
      await page.getByRole('button', { name: 'Save' }).click();
      const receipt = await until(
        async () => (await rest('GET', '/api/data/expense/exp-apollo-travel', undefined, KEYS.admin)).body?.receipt,
        (r) => !!r,
        'the receipt saved',
      );
      expect(receipt.name ?? receipt.original_name).to.equal('receipt.png');
      await page
        .getByRole('link', { name: /receipt\.png/ })
        .first()
        .waitFor();
      await visited('record-expense-admin');
      await openList('expense');
      await grid()
        .getByRole('link', { name: /receipt\.png/ })
        .waitFor();
    });

    it('runs a record action with its parameter', async () => {
      await openRecord('project', 'prj-apollo');
      await page.getByRole('button', { name: 'Close Project' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Reason').fill('Delivered');
      await visited('action-dialog-admin');
      await dialog.getByRole('button', { name: 'Run Close Project' }).click();
      await page.getByText(/closed: Delivered/).waitFor();
      const record = ok(await rest('GET', '/api/data/project/prj-apollo', undefined, KEYS.admin));
      expect(record.status).to.equal('done');
    });

    it('runs a global action', async () => {
      await openList('project');
      await page.getByRole('button', { name: 'Status Summary' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Run Status Summary' }).click();
      await dialog
        .getByText(/planning/)
        .first()
        .waitFor();
    });

    it('deletes the record', async () => {
      await openRecord('project', created!);
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL(/\/studio\/o\/project(\?.*)?$/, { timeout: DEADLINE_MS });
      expect((await rest('GET', `/api/data/project/${created}`, undefined, KEYS.admin)).status).to.equal(404);
    });

    it('reads the metadata pages', async () => {
      await browser!.goto(studioUrl('/meta'));
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await visited('metadata-admin');
      await browser!.goto(studioUrl('/meta/project'));
      await page.getByText('Actual Cost').first().waitFor();
      await visited('metadata-project-admin');
    });
  });

  // A suite of its own: mocha runs a suite's own tests before its nested suites.
  describe('accessibility', () => {
    it('no page visited has a serious or critical violation (axe-core)', () => {
      expect(a11y.size).to.be.above(5);
      const problems = [...a11y].flatMap(([name, list]) => list.map((v) => `${name}: ${v}`));
      expect(problems, problems.join('\n')).to.deep.equal([]);
    });
  });
});
