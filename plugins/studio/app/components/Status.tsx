/** Loading and error states, announced to screen readers. */
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api';
import type { Loaded } from '../hooks';

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorMessage({ error, retry }: { error: Error; retry?: () => void }) {
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div class="alert error" role="alert">
      <p>
        {code ? <strong>{code}: </strong> : null}
        {error.message}
      </p>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** The children with the loaded value, or the loading / error state. */
export function Await<T>({
  loaded,
  what,
  retry,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  retry?: () => void;
  children: (value: T) => ComponentChildren;
}) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'failed') return <ErrorMessage error={loaded.error} retry={retry} />;
  return <>{children(loaded.value)}</>;
}
