/** A scenario's request in one protocol's form, addressed to an ObjectQL bench server (bench/server.ts). */
import { SCENARIOS, type BenchData, type HttpRequest, type Scenario } from './scenarios';

/** What bench/server.ts prints once listening. */
export interface Urls {
  pid: number;
  rpc: string;
  rest: string;
  odata: string;
  graphql: string;
}

export type Protocol = keyof Omit<Urls, 'pid'>;
export const PROTOCOLS: Protocol[] = ['rpc', 'rest', 'odata', 'graphql'];

/** The scenario's request through `protocol`, its path under the server's prefix; throws when it has no such form. */
export function formFor(urls: Urls, data: BenchData, scenario: string, protocol: string): { url: URL; request: HttpRequest } {
  const s = SCENARIOS.find((x) => x.name === scenario);
  if (!s) throw new Error(`no scenario '${scenario}': ${SCENARIOS.map((x) => x.name).join(', ')}`);
  const form = hasForm(scenario, protocol) ? formOf(s, data, protocol as Protocol) : undefined;
  if (!form) throw new Error(`scenario '${scenario}' has no ${protocol} form`);
  const base = new URL(urls[protocol as Protocol]);
  return { url: base, request: { ...form, path: base.pathname.replace(/\/$/, '') + form.path } };
}

/** Whether the scenario can be asked through `protocol` (every scenario has a JSON-RPC form). */
export function hasForm(scenario: string, protocol: string): boolean {
  const s = SCENARIOS.find((x) => x.name === scenario);
  return Boolean(s && (PROTOCOLS as string[]).includes(protocol) && protocol in s);
}

/** The scenario's request through `protocol`, under that protocol's prefix; undefined when it has no such form. */
export function formOf(s: Scenario, data: BenchData, protocol: Protocol): HttpRequest | undefined {
  switch (protocol) {
    case 'rpc':
      return { method: 'POST', path: '', body: s.rpc(data) };
    case 'graphql':
      return s.graphql && { method: 'POST', path: '', body: s.graphql(data) };
    default:
      return s[protocol]?.(data);
  }
}
