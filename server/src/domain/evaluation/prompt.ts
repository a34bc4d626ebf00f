// An evaluator's prompt: its `{{variable}}` placeholders and their substitution. A name counts
// only if it starts with a letter and continues with letters, digits or `_`, with nothing else
// inside the braces (evaluators contract §2), so `{{ spaced }}` and `{{1x}}` stay literal text.

const PLACEHOLDER = /\{\{([A-Za-z][A-Za-z0-9_]*)\}\}/g;

/** the distinct placeholders, in order of first appearance */
export function promptVariables(prompt: string): string[] {
  return [...new Set([...prompt.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** a variable's value as prompt text: strings as they are, anything else as JSON */
export function stringifyVariable(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The prompt with each placeholder replaced by its value (missing ones by ""). One pass over
 * the template, so a value that itself contains `{{x}}` is never substituted again.
 */
export function compilePrompt(prompt: string, values: Record<string, unknown>): string {
  return prompt.replace(PLACEHOLDER, (_, name: string) => (Object.hasOwn(values, name) ? stringifyVariable(values[name]) : ''));
}
