import type { ProblemText } from '../api.ts';

/** A failed call, in the server's words (never a blank). */
export function ErrorBanner({ problem, title }: { problem: ProblemText | undefined; title?: string }) {
  if (!problem) return null;
  return (
    <div className="error-banner" role="alert">
      {title ? <strong>{title}: </strong> : null}
      {problem.message}
      {problem.status ? <span className="muted"> (HTTP {problem.status})</span> : null}
    </div>
  );
}
