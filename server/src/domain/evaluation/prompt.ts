// An evaluator's prompt variables and their substitution: shared with the console's evaluator
// form (shared/evaluation/prompt.ts), so both read the same placeholders.
export { compilePrompt, promptVariables, stringifyVariable } from '../../../../shared/evaluation/prompt.ts';
