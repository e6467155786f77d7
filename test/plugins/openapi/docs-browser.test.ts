/**
 * The API reference page as a browser sees it: headless Chromium loads the page of an instance
 * moved by `basePath` and Swagger UI renders every protocol's operations from the document, with
 * their paths under the base path — the page, its files and the document it fetches all found where
 * the plugin put them, under its strict Content-Security-Policy.
 */
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { isRequired } from '../../helpers/services';
import { startServer, type TestServer } from '../../helpers/server';

/** The flags the machine's Chromium needs to run headless here without reaching out. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--virtual-time-budget=15000',
  '--dump-dom',
];

describe('OpenAPI API reference page in a headless browser', function () {
  const chromium = findChromium();
  let s: TestServer;
  const requested: string[] = [];

  before(async function () {
    if (!chromium) {
      if (isRequired('chromium')) throw new Error('REQUIRE_SERVICES names chromium, but no Chromium is installed');
      console.log('      (skipped: no Chromium on this machine; apt-get install chromium)');
      this.skip();
    }
    s = await startServer(
      { basePath: '/v2', plugins: { rpc: true, rest: true, openapi: true } },
      {
        use: [
          {
            name: 'request-log',
            register: (k) =>
              k.hooks.publicRoutes.tap(
                { name: 'request-log', stage: -100 },
                (router) => void router.use((req, _res, next) => (requested.push(req.path), next())),
              ),
          },
        ],
      },
    );
  });
  after(async () => {
    await s?.stop();
  });

  it('renders the operations of every protocol, under the base path, from the document it fetched', async function () {
    this.timeout(60_000);
    const { stdout: dom } = await promisify(execFile)(chromium!, [...CHROMIUM_FLAGS, `${s.url}/v2/api/objectql/docs`], {
      timeout: 50_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(dom).to.include('class="swagger-ui"');
    expect(dom).to.include('opblock');
    // JSON-RPC and REST operations, each path under the base path.
    expect(dom).to.include('/v2/api/objectql');
    expect(dom).to.include('/v2/api/data/project');
    expect(requested).to.include('/v2/api/objectql/openapi.json');
    expect(requested.some((p) => p.endsWith('/swagger-ui-bundle.js'))).to.equal(true);
  });
});

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not this one
    }
  }
  return undefined;
}
