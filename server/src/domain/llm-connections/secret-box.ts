// AES-256-GCM for connection secrets at rest. Format `v1:<iv>:<tag>:<ciphertext>`, each part
// base64, a random 12-byte IV per value and the 16-byte auth tag. A keyring holds the current
// key (encrypts) and optionally the previous one (ENCRYPTION_KEY_PREVIOUS, decrypt only), so a
// key can be rotated: values under the old key still decrypt until `connections reencrypt`.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export class EncryptionKeyMissing extends Error {}

export interface Keyring {
  /** null: no key configured (PostgreSQL without ENCRYPTION_KEY) */
  current: Buffer | null;
  previous: Buffer | null;
}

const VERSION = 'v1';

export function encryptSecret(keyring: Keyring, plaintext: string): string {
  if (!keyring.current) throw new EncryptionKeyMissing('ENCRYPTION_KEY is not set');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.current, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join(':');
}

function tryDecrypt(key: Buffer, iv: Buffer, tag: Buffer, ciphertext: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** The plaintext and whether it was under the previous key; throws when no key of the ring opens it. */
export function decryptSecret(keyring: Keyring, stored: string): { plaintext: string; underPrevious: boolean } {
  const parts = stored.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('not a v1 encrypted value');
  const [iv, tag, ct] = parts.slice(1).map((p) => Buffer.from(p, 'base64')) as [Buffer, Buffer, Buffer];
  if (iv.length !== 12 || tag.length !== 16) throw new Error('malformed encrypted value');
  if (keyring.current) {
    const plaintext = tryDecrypt(keyring.current, iv, tag, ct);
    if (plaintext !== null) return { plaintext, underPrevious: false };
  }
  if (keyring.previous) {
    const plaintext = tryDecrypt(keyring.previous, iv, tag, ct);
    if (plaintext !== null) return { plaintext, underPrevious: true };
  }
  throw new Error('the value does not decrypt under ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS');
}
