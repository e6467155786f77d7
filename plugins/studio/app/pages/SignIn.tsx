/** Sign-in: an API key or a bearer token, traded at once for the session cookie (the credential is not kept). */
import { useState } from 'preact/hooks';
import { ApiError, type Api, type Credential } from '../api';
import { useTitle } from '../hooks';
import type { User } from '../types';

export function SignIn({ api, title, onSignedIn }: { api: Api; title: string; onSignedIn: (user: User) => void }) {
  useTitle('Sign in', title);
  const [kind, setKind] = useState<Credential['kind']>('apiKey');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await api.signIn({ kind, value: value.trim() }));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'That credential was not accepted.' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>{title}</h1>
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'sign-in-error' : undefined}>
        <fieldset>
          <legend>Sign in with</legend>
          <label>
            <input type="radio" name="kind" value="apiKey" checked={kind === 'apiKey'} onChange={() => setKind('apiKey')} /> An API key
          </label>
          <label>
            <input type="radio" name="kind" value="bearer" checked={kind === 'bearer'} onChange={() => setKind('bearer')} /> A bearer token
            (JWT)
          </label>
        </fieldset>
        <label for="credential">{kind === 'apiKey' ? 'API key' : 'Bearer token'}</label>
        <input
          id="credential"
          name="credential"
          type="password"
          autoComplete="off"
          required
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        {error ? (
          <p id="sign-in-error" class="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="primary" disabled={busy || !value.trim()}>
          Sign in
        </button>
      </form>
    </main>
  );
}
