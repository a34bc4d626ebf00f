// Environment names as Langfuse normalises them: never a validation error, always a safe label.
export function normaliseEnvironment(value: unknown): string {
  if (typeof value !== 'string') return 'default';
  let env = value.toLowerCase();
  // every leading langfuse / langfuse- / langfuse_ prefix goes: those names are reserved
  while (/^langfuse[-_]?/.test(env) && env.length > 0) env = env.replace(/^langfuse[-_]?/, '');
  env = env.slice(0, 40);
  return env && /^[a-z0-9-_]+$/.test(env) ? env : 'default';
}
