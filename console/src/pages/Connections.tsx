// Placeholder: being built.
export function Connections() {
  return <p>Not built yet.</p>;
}
