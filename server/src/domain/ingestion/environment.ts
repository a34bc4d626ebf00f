// Environment names as Langfuse normalises them: never a validation error, always a safe label.
// `reservedAllowed`: Tally's own records (the judge's traces in langfuse-llm-as-a-judge) keep
// the langfuse prefix that every sender's environment loses.
export function normaliseEnvironment(value: unknown, reservedAllowed = false): string {
  if (typeof value !== 'string') return 'default';
  let env = value.toLowerCase();
  // every leading langfuse / langfuse- / langfuse_ prefix goes: those names are reserved
  while (!reservedAllowed && /^langfuse[-_]?/.test(env) && env.length > 0) env = env.replace(/^langfuse[-_]?/, '');
  env = env.slice(0, 40);
  return env && /^[a-z0-9-_]+$/.test(env) ? env : 'default';
}
