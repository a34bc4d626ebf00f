// `connections reencrypt`: every connection secret rewritten under the current key, after a
// rotation (ENCRYPTION_KEY = new key, ENCRYPTION_KEY_PREVIOUS = old key). Each row is
// decrypted (under either key) and encrypted again with a fresh IV; a row no key opens stops
// the run with its id, leaving the rows done so far rewritten (running it again is safe).
import type { Db } from '../store/sql.ts';
import { decryptSecret, encryptSecret, EncryptionKeyMissing, type Keyring } from '../domain/llm-connections/secret-box.ts';
import { allCiphertexts, rewriteCiphertexts } from '../store/llm-connections.ts';

export async function reencryptConnections(db: Db, keyring: Keyring): Promise<{ connections: number; underPreviousKey: number }> {
  if (!keyring.current) throw new EncryptionKeyMissing('ENCRYPTION_KEY is not set: there is no key to re-encrypt under');
  let underPreviousKey = 0;
  const rows = await allCiphertexts(db);
  for (const row of rows) {
    let previous = false;
    const again = (stored: string) => {
      let opened: ReturnType<typeof decryptSecret>;
      try {
        opened = decryptSecret(keyring, stored);
      } catch (e) {
        throw new Error(`connection ${row.id}: ${(e as Error).message}`);
      }
      if (opened.underPrevious) previous = true;
      return encryptSecret(keyring, opened.plaintext);
    };
    const secret = again(row.secretKeyEnc);
    const headers = row.extraHeadersEnc === null ? null : again(row.extraHeadersEnc);
    if (previous) underPreviousKey++;
    await rewriteCiphertexts(db, row.id, secret, headers);
  }
  return { connections: rows.length, underPreviousKey };
}
