// Placeholder: being built.
export function Playground() {
  return <p>Not built yet.</p>;
}
