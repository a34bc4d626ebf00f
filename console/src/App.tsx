import { useMemo, useState } from 'react';
import { createTally, loadSession, saveSession, TallyContext, type Session, type Tally } from './api.ts';
import { ROUTES, useHashRoute, type Route } from './hooks.ts';
import { Alerts } from './pages/Alerts.tsx';
import { Connections } from './pages/Connections.tsx';
import { Dashboard } from './pages/Dashboard.tsx';
import { Evaluators } from './pages/Evaluators.tsx';
import { Generations } from './pages/Generations.tsx';
import { Models } from './pages/Models.tsx';
import { Playground } from './pages/Playground.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Traces } from './pages/Traces.tsx';

const TITLES: Record<Route, string> = {
  dashboard: 'Dashboard',
  traces: 'Traces',
  generations: 'Generations',
  models: 'Models',
  connections: 'LLM connections',
  playground: 'Playground',
  evaluators: 'Evaluators',
  alerts: 'Alerts',
};
const PAGES: Record<Route, () => React.JSX.Element> = {
  dashboard: Dashboard,
  traces: Traces,
  generations: Generations,
  models: Models,
  connections: Connections,
  playground: Playground,
  evaluators: Evaluators,
  alerts: Alerts,
};
const ORDER: Route[] = ['dashboard', 'traces', 'generations', 'models', 'connections', 'playground', 'evaluators', 'alerts'];

export function App({ baseUrl }: { baseUrl?: string }) {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const tally = useMemo<Tally | null>(() => (session ? createTally(session, baseUrl) : null), [session, baseUrl]);
  const [route] = useHashRoute();

  if (!session || !tally) {
    return (
      <SignIn
        baseUrl={baseUrl}
        onSignedIn={(s) => {
          saveSession(s);
          setSession(s);
        }}
      />
    );
  }
  const Page = PAGES[route];
  return (
    <TallyContext.Provider value={tally}>
      <header className="top">
        <span className="brand">Tally</span>
        <nav aria-label="Console">
          {ORDER.filter((r) => ROUTES.includes(r)).map((r) => (
            <a key={r} href={`#/${r}`} aria-current={r === route ? 'page' : undefined}>
              {TITLES[r]}
            </a>
          ))}
        </nav>
        <span className="who" title="the public key of this tab's session">
          {session.publicKey}
        </span>
        <button
          type="button"
          className="link"
          onClick={() => {
            saveSession(null);
            setSession(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main className="page" aria-labelledby="page-title">
        <h1 id="page-title">{TITLES[route]}</h1>
        <Page key={route} />
      </main>
    </TallyContext.Provider>
  );
}
