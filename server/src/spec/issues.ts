// Request validation issues in zod-v4 style, and the fixed texts of refused requests: shared with
// the SDK's mocks (shared/validation/issues.ts), so both answer in the same words.
export { BODY_REQUIRED, ingestionErrorText, issuesFromAjv, NO_AUTHORIZATION_HEADER } from '../../../shared/validation/issues.ts';
