import { randomBytes } from 'node:crypto';

/** Collision-resistant, URL-safe, sortable-enough ids in the style of Langfuse's cuids. */
export function newId(): string {
  return `c${Date.now().toString(36)}${randomBytes(10).toString('hex')}`;
}
