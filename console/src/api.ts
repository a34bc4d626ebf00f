// The console talks to Tally only through the repository's SDK (sdk/, generated from the spec).
// The key pair lives in sessionStorage: one browser tab, gone when the tab closes, never a cookie
// (the server reads credentials only from the Authorization header, so no other site can make a
// browser spend them).
import { createContext, useContext } from 'react';
import { Tally, TallyApiError, TallyNetworkError } from '../../sdk/index.ts';

export { Tally };

export interface Session {
  publicKey: string;
  secretKey: string;
}

const STORAGE_KEY = 'tally-console-session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    return typeof s.publicKey === 'string' && typeof s.secretKey === 'string' ? { publicKey: s.publicKey, secretKey: s.secretKey } : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** A client for the server that served the console (or `baseUrl` in tests). */
export function createTally(session: Session, baseUrl: string = window.location.origin): Tally {
  // retries belong to scripts; a person clicking wants the first answer
  return new Tally({ baseUrl, publicKey: session.publicKey, secretKey: session.secretKey, maxRetries: 0 });
}

export const TallyContext = createContext<Tally | null>(null);

/** The signed-in project's client; pages render only inside the signed-in shell. */
export function useTally(): Tally {
  const tally = useContext(TallyContext);
  if (!tally) throw new Error('useTally outside the signed-in console');
  return tally;
}

/** One validation issue of a 400 body, keyed by its dotted path (`pricingTiers.1.conditions.0.operator`). */
export type FieldErrors = Record<string, string>;

export interface ProblemText {
  /** what to show in the banner: the server's own message, never blank */
  message: string;
  /** per-field messages from the body's issue list, where it has one */
  fields: FieldErrors;
  status?: number;
}

/** The server's words for a failed call: its `message` and any per-field issues. */
export function describeError(e: unknown): ProblemText {
  if (e instanceof TallyApiError) {
    const body = e.body as { message?: unknown; error?: unknown; errors?: unknown; details?: unknown } | string | null;
    const fields: FieldErrors = {};
    let message = `The server answered ${e.status}`;
    if (body && typeof body === 'object') {
      if (typeof body.message === 'string' && body.message) message = body.message;
      // Langfuse's public envelope lists issues in `error`; the unstable one in `details.issues`
      const nested = body.details && typeof body.details === 'object' ? (body.details as { issues?: unknown }).issues : undefined;
      const issues = Array.isArray(body.error)
        ? body.error
        : Array.isArray(nested)
          ? nested
          : Array.isArray(body.details)
            ? body.details
            : Array.isArray(body.errors)
              ? body.errors
              : [];
      for (const issue of issues as Array<{ path?: unknown; message?: unknown }>) {
        if (!issue || typeof issue !== 'object' || typeof issue.message !== 'string') continue;
        const path = Array.isArray(issue.path) ? issue.path.join('.') : typeof issue.path === 'string' ? issue.path : '';
        const text = sentence(issue.message);
        fields[path] = fields[path] ? `${fields[path]} ${text}` : text;
      }
      if (typeof body.error === 'string' && message === `The server answered ${e.status}`) message = body.error;
    } else if (typeof body === 'string' && body) {
      message = body.slice(0, 300);
    }
    return { message, fields, status: e.status };
  }
  if (e instanceof TallyNetworkError) return { message: unreachable(e), fields: {} };
  return { message: e instanceof Error && e.message ? e.message : String(e), fields: {} };
}

/**
 * A validator's issue text as a sentence a person reads next to the field ("Too small: expected
 * string to have >=1 characters" → "Required."). Texts it does not know are kept, as a sentence.
 */
export function sentence(message: string): string {
  const rules: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^Too small: expected string to have >=1 characters?$/, () => 'Required.'],
    [/^Too small: expected string to have >=(\d+) characters?$/, (m) => `Must be at least ${m[1]} characters long.`],
    [/^Too big: expected string to have <=(\d+) characters?$/, (m) => `Must be at most ${m[1]} characters long.`],
    [/^Too small: expected number to be >=(-?[\d.e+-]+)$/, (m) => `Must be ${m[1]} or more.`],
    [/^Too small: expected number to be >(-?[\d.e+-]+)$/, (m) => `Must be more than ${m[1]}.`],
    [/^Too big: expected number to be <=(-?[\d.e+-]+)$/, (m) => `Must be ${m[1]} or less.`],
    [/^Too big: expected number to be <(-?[\d.e+-]+)$/, (m) => `Must be less than ${m[1]}.`],
    [/^Too small: expected array to have >=1 items?$/, () => 'Add at least one.'],
    [/^Too small: expected array to have >=(\d+) items?$/, (m) => `Add at least ${m[1]}.`],
    [/^Too big: expected array to have <=(\d+) items?$/, (m) => `At most ${m[1]} allowed.`],
    [/^Invalid input: expected "[^"]+" to be present$/, () => 'Required.'],
    [/^Invalid input: expected (?:integer)$/, () => 'Must be a whole number.'],
    [/^Invalid input: expected (?:number)(?: or null)?$/, () => 'Must be a number.'],
    [/^Invalid input: expected (?:string)(?: or null)?$/, () => 'Must be text.'],
    [/^Invalid input: expected (?:boolean)$/, () => 'Must be yes or no.'],
    [/^Invalid option: expected one of (.+)$/, (m) => `Must be one of ${m[1]!.replace(/"/g, '').split('|').join(', ')}.`],
    [/^Unrecognized key: "(.+)"$/, (m) => `“${m[1]}” is not a field this accepts.`],
    [/^Invalid input: matches none of the allowed shapes$/, () => 'Not in a form this accepts.'],
  ];
  for (const [re, say] of rules) {
    const m = re.exec(message);
    if (m) return say(m);
  }
  const t = message.trim();
  return t && !/[.!?]$/.test(t) ? `${t[0]!.toUpperCase()}${t.slice(1)}.` : t;
}

/**
 * A call that got no HTTP answer at all (server stopped, restarting, network down). The SDK's own
 * message carries the whole URL, which for a metrics query is a screenful of encoded JSON: say
 * what happened in words, with just the method and path for whoever debugs it.
 */
function unreachable(e: TallyNetworkError): string {
  const said = "Can't reach the Tally server";
  const advice = 'it may be stopped or restarting, or the network is down. Try again once it is back.';
  const reason = e.message.split('got no response: ')[1] ?? e.message;
  let url: URL | undefined;
  try {
    url = e.url ? new URL(e.url) : undefined;
  } catch {
    url = undefined;
  }
  return url
    ? `${said} at ${url.origin}: ${advice} (${e.method ?? 'request'} ${url.pathname}: ${reason})`
    : `${said}: ${advice} (${reason})`;
}
