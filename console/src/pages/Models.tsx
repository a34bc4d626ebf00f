// Placeholder: being built.
export function Models() {
  return <p>Not built yet.</p>;
}
