// Request validation issues in zod-v4 style: shared with the SDK's mocks (shared/validation/issues.ts).
export { issuesFromAjv } from '../../../shared/validation/issues.ts';
