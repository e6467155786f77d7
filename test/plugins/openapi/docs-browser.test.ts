/**
 * The API reference page as a browser sees it: headless Chromium loads the page of an instance
 * moved by `basePath` and Swagger UI renders every protocol's operations from the document, with
 * their paths under the base path — the page, its files and the document it fetches all found where
 * the plugin put them.
 */
import { expect } from 'chai';
import { chromiumOrSkip, renderedDom } from '../../helpers/chromium';
import { startServer, type TestServer } from '../../helpers/server';

describe('OpenAPI API reference page in a headless browser', function () {
  let chromium: string;
  let s: TestServer;
  const requested: string[] = [];

  before(async function () {
    chromium = chromiumOrSkip(this);
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
    const dom = await renderedDom(chromium, `${s.url}/v2/api/objectql/docs`);
    expect(dom).to.include('class="swagger-ui"');
    expect(dom).to.include('opblock');
    // JSON-RPC and REST operations, each path under the base path.
    expect(dom).to.include('/v2/api/objectql');
    expect(dom).to.include('/v2/api/data/project');
    expect(requested).to.include('/v2/api/objectql/openapi.json');
    expect(requested.some((p) => p.endsWith('/swagger-ui-bundle.js'))).to.equal(true);
  });
});
