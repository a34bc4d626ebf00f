import { useState, type FormEvent } from 'react';
import { createTally, describeError, type ProblemText, type Session, type Tally } from '../api.ts';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { Field } from '../components/Field.tsx';

/** Asks for a project's key pair and checks it against the server before keeping it. */
export function SignIn({ onSignedIn, baseUrl }: { onSignedIn: (s: Session, tally: Tally) => void; baseUrl?: string }) {
  const [publicKey, setPublicKey] = useState('');
  const [secretKey, setSecretKey] = useState('');
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setProblem(undefined);
    const session = { publicKey: publicKey.trim(), secretKey: secretKey.trim() };
    try {
      const tally = createTally(session, baseUrl);
      await tally.models.list({ query: { limit: 1 } }); // any authenticated read proves the pair
      onSignedIn(session, tally);
    } catch (err) {
      setProblem(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>Tally</h1>
      <p>
        Sign in with a project's API keys. <code>make run</code> prints a pair the first time it starts. They are kept for this browser tab
        only.
      </p>
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="Public key">
          {(ids) => (
            <input
              {...ids}
              name="publicKey"
              autoComplete="username"
              // biome-ignore lint/a11y/noAutofocus: the sign-in form is the whole page; its first field is where every user starts
              autoFocus
              required
              value={publicKey}
              onChange={(e) => setPublicKey(e.target.value)}
              placeholder="pk-lf-…"
            />
          )}
        </Field>
        <Field label="Secret key">
          {(ids) => (
            <input
              {...ids}
              name="secretKey"
              type="password"
              autoComplete="current-password"
              required
              value={secretKey}
              onChange={(e) => setSecretKey(e.target.value)}
              placeholder="sk-lf-…"
            />
          )}
        </Field>
        <ErrorBanner problem={problem} title="Could not sign in" />
        <button type="submit" aria-disabled={busy || undefined}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
