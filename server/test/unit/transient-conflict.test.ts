import { describe, expect, it } from 'vitest';
import { ConcurrentWriteError, isLockTimeout, isTransientConflict } from '../../src/store/sql.ts';

describe('which failed batches are applied again', () => {
  it('retries concurrent writes, deadlocks and serialization failures, also when wrapped', () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect(isTransientConflict(new ConcurrentWriteError('2 observations changed concurrently'))).toBe(true);
    expect(isTransientConflict(deadlock)).toBe(true);
    expect(isTransientConflict(new Error('wrapped', { cause: deadlock }))).toBe(true);
    expect(isTransientConflict(Object.assign(new Error('could not serialize access'), { code: '40001' }))).toBe(true);
  });

  it('does not retry what would fail again', () => {
    expect(isTransientConflict(Object.assign(new Error('invalid input syntax for type json'), { code: '22P02' }))).toBe(false);
    expect(isTransientConflict(new Error('connection terminated'))).toBe(false);
    expect(isTransientConflict(undefined)).toBe(false);
  });
});

describe('lock timeouts', () => {
  it('are told apart from conflicts worth a retry, also when wrapped', () => {
    const timeout = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    expect(isLockTimeout(timeout)).toBe(true);
    expect(isLockTimeout(new Error('wrapped', { cause: timeout }))).toBe(true);
    expect(isTransientConflict(timeout)).toBe(false);
    expect(isLockTimeout(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(false);
  });
});
