// Shared by the server (the judge's prompt) and the console (the evaluator form's variables).
// An evaluator's prompt: its `{{variable}}` placeholders and their substitution. A declared
// variable starts with a letter and continues with letters, digits or `_`, with nothing else
// inside the braces; substitution, as in Langfuse, also reads `{{ name }}` with inner
// spaces. A placeholder without a value stays as it is.

const PLACEHOLDER = /\{\{([A-Za-z][A-Za-z0-9_]*)\}\}/g;
const SUBSTITUTED = /\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g;

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
 * The prompt with each placeholder that has an entry in `values` replaced (null and undefined
 * by ""); others stay. One pass over the template, so a value that itself contains `{{x}}` is
 * never substituted again.
 */
export function compilePrompt(prompt: string, values: Record<string, unknown>): string {
  return prompt.replace(SUBSTITUTED, (whole, name: string) => (Object.hasOwn(values, name) ? stringifyVariable(values[name]) : whole));
}
