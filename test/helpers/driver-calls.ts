/** Counting what a request asks of the store: how many times each datasource read method runs. */
import type { Datasource } from '../../kernel';
import type { TestServer } from './server';

/** Calls of `find`, `count` and `aggregate` on a datasource while fn runs. */
export async function driverCalls(s: TestServer, fn: () => Promise<unknown>, datasource = 'default'): Promise<Record<string, number>> {
  const ds = s.kernel.resolve('datasources').get(datasource) as Datasource & Record<string, unknown>;
  const calls: Record<string, number> = {};
  const originals = (['find', 'count', 'aggregate'] as const).map((name) => {
    const orig = (ds[name] as (...a: unknown[]) => unknown).bind(ds);
    ds[name] = ((...a: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return orig(...a);
    }) as never;
    return [name, orig] as const;
  });
  try {
    await fn();
  } finally {
    for (const [name, orig] of originals) ds[name] = orig as never;
  }
  return calls;
}
