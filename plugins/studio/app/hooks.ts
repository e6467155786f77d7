/** Small hooks the pages share. */
import { useEffect, useState } from 'preact/hooks';

export type Loaded<T> = { state: 'loading' } | { state: 'ready'; value: T } | { state: 'failed'; error: Error };

/** Runs `load` whenever `deps` change; a result that arrives after newer deps is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void] {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setResult({ state: 'ready', value }),
      (error: unknown) => current && setResult({ state: 'failed', error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, tick]);
  return [result, () => setTick((t) => t + 1)];
}

/** Sets the document's title while a page is shown. */
export function useTitle(title: string, app: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${app}` : app;
  }, [title, app]);
}
