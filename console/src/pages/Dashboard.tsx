// Placeholder: being built.
export function Dashboard() {
  return <p>Not built yet.</p>;
}
