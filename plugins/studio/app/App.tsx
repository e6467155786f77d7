/**
 * The console: finds out who is signed in (the session cookie), asks for a sign-in when nobody is
 * and the service has sessions, loads the objects this user may read, then routes in the browser.
 */
import { LocationProvider, Route, Router } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, ApiError } from './api';
import { ErrorMessage, Loading } from './components/Status';
import { Layout } from './components/Layout';
import { Live } from './live';
import { Home } from './pages/Home';
import { ListPage } from './pages/ListPage';
import { MetadataPage } from './pages/MetadataPage';
import { NotFound } from './pages/NotFound';
import { RecordPage } from './pages/RecordPage';
import { SignIn } from './pages/SignIn';
import type { StudioSettings } from './settings';
import { Notes, StudioContext, type Studio } from './studio';
import type { ObjectSummary, User } from './types';

type Phase =
  | { name: 'starting' }
  | { name: 'sign-in' }
  | { name: 'ready'; user?: User; objects: Map<string, ObjectSummary> }
  | { name: 'failed'; error: Error };

export function App({ settings }: { settings: StudioSettings }) {
  const api = useMemo(() => new Api(settings.api), [settings]);
  const [phase, setPhase] = useState<Phase>({ name: 'starting' });
  const [live, setLive] = useState(() => new Live(settings.api.realtime));
  const notes = useMemo(() => new Notes(), []);

  async function start(known?: User) {
    setPhase({ name: 'starting' });
    try {
      const user = known ?? (await api.currentUser());
      if (!user && settings.api.session) return setPhase({ name: 'sign-in' });
      const objects = await api.objects();
      setPhase({ name: 'ready', user, objects: new Map(objects.map((o) => [o.name, o])) });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && !settings.api.session) {
        const error = new Error('This service asks for credentials but offers no session to sign in with: enable plugins.auth.sessions.');
        return setPhase({ name: 'failed', error });
      }
      setPhase({ name: 'failed', error: err as Error });
    }
  }

  useEffect(() => {
    api.onUnauthorized = () => {
      if (settings.api.session) setPhase({ name: 'sign-in' });
    };
    void start();
  }, [api]);

  async function signOut() {
    live.close();
    await api.signOut();
    setLive(new Live(settings.api.realtime));
    setPhase({ name: 'sign-in' });
  }

  if (phase.name === 'starting') return <Loading what="Studio" />;
  if (phase.name === 'failed') return <ErrorMessage error={phase.error} retry={() => void start()} />;
  if (phase.name === 'sign-in') return <SignIn api={api} title={settings.title} onSignedIn={(user) => void start(user)} />;

  const base = settings.base;
  const studio: Studio = {
    settings,
    api,
    live,
    user: phase.user,
    objects: phase.objects,
    href: (path) => `${base}${path === '/' ? '/' : path}`,
    signOut,
    notes,
  };
  return (
    <StudioContext.Provider value={studio}>
      <LocationProvider scope={base}>
        <Layout>
          <Router>
            <Route path={`${base}/`} component={Home} />
            <Route path={base} component={Home} />
            <Route path={`${base}/o/:object`} component={ListPage} />
            <Route path={`${base}/o/:object/new`} component={RecordPage} />
            <Route path={`${base}/o/:object/r/:id`} component={RecordPage} />
            <Route path={`${base}/meta`} component={MetadataPage} />
            <Route path={`${base}/meta/:object`} component={MetadataPage} />
            <Route default component={NotFound} />
          </Router>
        </Layout>
      </LocationProvider>
    </StudioContext.Provider>
  );
}
