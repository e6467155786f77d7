/**
 * The kernel alone on an ephemeral port: no plugin, no driver, no object — what kernel/ serves by
 * itself (health, discovery, security headers, identity, the error format, WebSocket upgrades).
 * Tests of the assembled server (built-in plugins and drivers) use test/helpers/server.ts instead.
 */
import { Kernel, type KernelOptions, type ObjectQLConfig, type Plugin } from '../../kernel';

export interface BareKernel {
  kernel: Kernel;
  url: string;
  /** Any request; a non-string body is sent as JSON. Answers with the status, the parsed body and the headers. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  stop(): Promise<void>;
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** Starts a kernel with the test's own plugins only, and no metadata or datasource. */
export async function startBareKernel(
  config: ObjectQLConfig = {},
  plugins: Plugin[] = [],
  options: KernelOptions = {},
): Promise<BareKernel> {
  const kernel = new Kernel({ port: 0, host: '127.0.0.1', logLevel: 'silent', metadata: [], datasources: {}, ...config }, options);
  for (const plugin of plugins) kernel.use(plugin);
  await kernel.start();
  const url = kernel.http.url;
  return {
    kernel,
    url,
    request: async (method, path, body, headers = {}) => {
      const sent: Record<string, string> = { ...headers };
      let text: string | undefined;
      if (body !== undefined) {
        text = typeof body === 'string' ? body : JSON.stringify(body);
        sent['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers: sent, body: text });
      const answer = await res.text();
      let parsed: unknown = answer;
      try {
        parsed = answer ? JSON.parse(answer) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    stop: () => kernel.stop(),
  };
}
