/**
 * The landing page as a person meets it: headless Chromium opens GET /, the page is styled under its
 * own Content-Security-Policy, the door links are there, and clicking the API reference link lands
 * on Swagger UI rendering the operations.
 */
import { expect } from 'chai';
import { chromiumOrSkip, openBrowserPage, type BrowserPage } from '../helpers/chromium';
import { startServer, type TestServer } from '../helpers/server';

describe('landing page in a headless browser', function () {
  this.timeout(60_000);
  let s: TestServer | undefined;
  let page: BrowserPage | undefined;

  before(async function () {
    const chromium = chromiumOrSkip(this);
    s = await startServer({ plugins: { rpc: true, rest: true, openapi: true, odata: true, graphql: true, realtime: true } });
    page = await openBrowserPage(chromium);
  });
  after(async () => {
    await Promise.allSettled([page?.close(), s?.stop()]);
  });

  it('lists the doors as links, and its API reference link opens the reference', async () => {
    await page!.goto(`${s!.url}/`);
    await page!.screenshot('landing-page');
    const links = await page!.evaluate<string[]>("[...document.querySelectorAll('a')].map((a) => a.getAttribute('href'))");
    expect(links).to.include.members(['/api/objectql/docs', '/api/graphql', '/odata', '/odata/$metadata', '/health']);
    // The inline style applies: the CSP's hash matches it.
    expect(await page!.evaluate<string>("getComputedStyle(document.querySelector('table')).borderCollapse")).to.equal('collapse');

    await page!.click('a[href="/api/objectql/docs"]');
    expect(await page!.evaluate<string>('location.pathname')).to.equal('/api/objectql/docs');
    const deadline = Date.now() + 20_000;
    let operations = 0;
    while (operations === 0 && Date.now() < deadline) {
      operations = await page!.evaluate<number>("document.querySelectorAll('.swagger-ui .opblock').length");
      if (operations === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(operations, 'Swagger UI rendered the operations').to.be.greaterThan(0);
  });
});
