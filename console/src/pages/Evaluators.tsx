// Placeholder: being built.
export function Evaluators() {
  return <p>Not built yet.</p>;
}
