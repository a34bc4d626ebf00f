import { describe, expect, it } from 'vitest';
import { RevisionCache } from '../../src/caches/revisions.ts';

describe('revisions kept while change notifications arrive', () => {
  const counter = (value: () => string) => {
    const reader = {
      reads: 0,
      read: async () => {
        reader.reads++;
        return value();
      },
    };
    return reader;
  };

  it('reads the database on every request until the notifications are live', async () => {
    const c = new RevisionCache();
    const r = counter(() => '1:1');
    await c.get('p', r.read);
    await c.get('p', r.read);
    expect(r.reads).toBe(2);
    c.setLive(true);
    await c.get('p', r.read);
    expect(await c.get('p', r.read)).toBe('1:1');
    expect(r.reads).toBe(3);
  });

  it("reads again after a change of the key's scope; a change of every scope reads every key again", async () => {
    const c = new RevisionCache();
    c.setLive(true);
    let rev = '1:1';
    const r = counter(() => rev);
    await c.get('p', r.read);
    await c.get('q', r.read);
    rev = '2:1';
    c.changed('p');
    expect(await c.get('p', r.read)).toBe('2:1');
    await c.get('q', r.read);
    expect(r.reads).toBe(3); // q kept
    c.changed('*', true);
    await c.get('p', r.read);
    await c.get('q', r.read);
    expect(r.reads).toBe(5);
  });

  it('does not keep a read that a change overtook (it may predate the change), nor one across a loss of the notifications', async () => {
    const c = new RevisionCache();
    c.setLive(true);
    const r = counter(() => '1:1');
    const slow = async () => {
      c.changed('p'); // the notification arrives while the read is in flight
      return r.read();
    };
    await c.get('p', slow);
    await c.get('p', r.read);
    expect(r.reads).toBe(2);
    await c.get('p', r.read);
    expect(r.reads).toBe(2); // kept from the second read on
    c.setLive(false); // the connection dropped: a notification may have been missed
    await c.get('p', r.read);
    await c.get('p', r.read);
    expect(r.reads).toBe(4);
    const lost = async () => {
      c.setLive(true);
      c.setLive(false);
      c.setLive(true);
      return r.read();
    };
    await c.get('p', lost);
    await c.get('p', r.read);
    expect(r.reads).toBe(6);
  });

  it('reads again once a kept revision is older than maxAgeMs, notifications or not', async () => {
    let t = 0;
    const c = new RevisionCache({ maxAgeMs: 5_000, now: () => t });
    c.setLive(true);
    const r = counter(() => '1:1');
    await c.get('p', r.read);
    t = 4_999;
    await c.get('p', r.read);
    expect(r.reads).toBe(1);
    t = 5_000;
    await c.get('p', r.read);
    expect(r.reads).toBe(2);
  });
});
