/** Starts a real kernel on an ephemeral port and talks to it over real HTTP. */
import { resolve } from 'node:path';
import { createKernel, type Kernel, type KernelOptions, type ObjectQLConfig, type Plugin } from '../../server';

export const SAMPLE_METADATA = resolve(__dirname, '../../metadata');

export interface TestServer {
  kernel: Kernel;
  url: string;
  /** POST to the JSON-RPC route; returns status and parsed body. */
  rpc(body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  /** Any request; a non-string body is sent as JSON. */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * Identity from an `X-Test-User` header holding the user as JSON (tests of protocols without a
   * body user, such as REST); a header that is absent means anonymous.
   */
  identityFromHeader?: boolean;
  /** Plugins of the test itself, registered before start. */
  use?: Plugin[];
  /** Where the kernel's log lines go (set logLevel in the config: test servers are silent by default). */
  logDestination?: KernelOptions['logDestination'];
}

/** The header that names the caller on a server started with `identityFromHeader`; none for anonymous. */
export function identityHeader(user: object | null | undefined): Record<string, string> {
  return user ? { 'x-test-user': JSON.stringify(user) } : {};
}

export async function startServer(config: ObjectQLConfig = {}, options: StartOptions = {}): Promise<TestServer> {
  // Each test server gets its own store: the memory driver unless the test names datasources.
  const kernel = await createKernel(
    {
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      metadata: [SAMPLE_METADATA],
      datasources: { default: { driver: 'memory' } },
      ...config,
    },
    { logDestination: options.logDestination },
  );
  if (options.identityFromHeader) {
    kernel.use({
      name: 'test-identity',
      register(k) {
        k.hooks.authenticate.tapPromise('test-identity', (req) => {
          const header = req.headers['x-test-user'];
          return Promise.resolve(header ? JSON.parse(String(header)) : undefined);
        });
      },
    });
  }
  for (const plugin of options.use ?? []) kernel.use(plugin);
  await kernel.start();
  const url = kernel.http.url;
  const request: TestServer['request'] = async (method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    kernel,
    url,
    request,
    rpc: (body, headers) => request('POST', kernel.http.routes.rpc, body, headers),
    stop: () => kernel.stop(),
  };
}

/** Users of the sample application (see metadata/README or test/plugins/rpc). */
export const USERS = {
  alice: { id: 'alice', roles: ['member'] },
  bob: { id: 'bob', roles: ['member'] },
  carol: { id: 'carol', roles: ['manager'] },
  viewer: { id: 'victor', roles: ['viewer'] },
  admin: { id: 'root', roles: ['admin'] },
  nobody: { id: 'nobody', roles: [] as string[] },
};
