import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { connectionModels, DEFAULT_MODELS } from '../../src/domain/llm-connections/default-models.ts';
import { decryptSecret, encryptSecret, EncryptionKeyMissing } from '../../src/domain/llm-connections/secret-box.ts';
import { checkBaseUrl, displaySecretKey, LLM_ADAPTERS, validateConnectionInput } from '../../src/domain/llm-connections/validate.ts';

const ring = () => ({ current: randomBytes(32), previous: null });

describe('secret box (AES-256-GCM)', () => {
  it('round-trips UTF-8 under a fresh IV each time, in the v1 format', () => {
    const k = ring();
    const a = encryptSecret(k, 'sk-ünïcødé-🔑');
    const b = encryptSecret(k, 'sk-ünïcødé-🔑');
    expect(a).not.toBe(b);
    const [v, iv, tag] = a.split(':');
    expect(v).toBe('v1');
    expect(Buffer.from(iv!, 'base64')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64')).toHaveLength(16);
    expect(decryptSecret(k, a)).toEqual({ plaintext: 'sk-ünïcødé-🔑', underPrevious: false });
    expect(a).not.toContain('sk-');
  });

  it('decrypts under the previous key after a rotation, and refuses a wrong key or a changed byte', () => {
    const old = ring();
    const stored = encryptSecret(old, 'secret');
    const rotated = { current: randomBytes(32), previous: old.current };
    expect(decryptSecret(rotated, stored)).toEqual({ plaintext: 'secret', underPrevious: true });
    expect(() => decryptSecret(ring(), stored)).toThrow(/ENCRYPTION_KEY/);
    const parts = stored.split(':');
    const ct = Buffer.from(parts[3]!, 'base64');
    ct[0]! ^= 1;
    expect(() => decryptSecret(old, [parts[0], parts[1], parts[2], ct.toString('base64')].join(':'))).toThrow();
    expect(() => decryptSecret(old, 'plain')).toThrow();
  });

  it('cannot encrypt without a key', () => {
    expect(() => encryptSecret({ current: null, previous: null }, 'x')).toThrow(EncryptionKeyMissing);
  });
});

describe('connection rules', () => {
  it('masks as Langfuse does', () => {
    expect(displaySecretKey('sk-test123')).toBe('...t123');
    expect(displaySecretKey('sk-very-secret-key')).toBe('...-key');
    expect(displaySecretKey('{"apiKey":"bedrock-api-key-9876"}')).toBe('...9876');
    expect(displaySecretKey('__BEDROCK_DEFAULT_CREDENTIALS__')).toBe('Default AWS credentials');
    expect(displaySecretKey('__VERTEXAI_DEFAULT_CREDENTIALS__')).toBe('Default GCP credentials (ADC)');
    expect(displaySecretKey('short')).toBe('...');
  });

  it('accepts the valid forms of each adapter', () => {
    expect(
      validateConnectionInput({
        adapter: 'bedrock',
        secretKey: '{"accessKeyId":"a","secretAccessKey":"b"}',
        config: { region: 'us-east-1', extra: 'kept' },
      }),
    ).toEqual([]);
    expect(
      validateConnectionInput({ adapter: 'bedrock', secretKey: '__BEDROCK_DEFAULT_CREDENTIALS__', config: { region: 'us-east-1' } }),
    ).toEqual([]);
    expect(validateConnectionInput({ adapter: 'openai', secretKey: 'k', config: {} })).toEqual([]);
    expect(validateConnectionInput({ adapter: 'openai', secretKey: 'k', config: { useResponsesApi: false } })).toEqual([]);
    expect(validateConnectionInput({ adapter: 'google-vertex-ai', secretKey: '{}', config: { location: 'eu' } })).toEqual([]);
    for (const adapter of ['anthropic', 'azure', 'google-ai-studio'] as const)
      expect(validateConnectionInput({ adapter, secretKey: 'k', config: {} })).toEqual([]);
  });

  it('checks baseURL as an http(s) URL only', () => {
    expect(checkBaseUrl(undefined)).toEqual({ url: null });
    expect(checkBaseUrl('')).toEqual({ url: null });
    expect(checkBaseUrl('http://localhost:11434/v1')).toEqual({ url: 'http://localhost:11434/v1' });
    expect(checkBaseUrl('x')).toEqual({ notAUrl: true });
    expect(checkBaseUrl('javascript:alert(1)')).toHaveProperty('refused');
  });

  it("has default models for every adapter, the brief's families included", () => {
    for (const a of LLM_ADAPTERS) expect(DEFAULT_MODELS[a].length).toBeGreaterThan(0);
    expect(DEFAULT_MODELS.openai.some((m) => /^o\d/.test(m))).toBe(true);
    expect(DEFAULT_MODELS.openai.some((m) => m.endsWith('-mini'))).toBe(true);
    for (const series of ['2.5', '2.0', '1.5', '1.0'])
      expect(DEFAULT_MODELS['google-ai-studio'].some((m) => m.startsWith(`gemini-${series}`))).toBe(true);
    expect(connectionModels('anthropic', false, ['x', 'x'])).toEqual([{ name: 'x', source: 'custom' }]);
  });

  it('parses ENCRYPTION_KEY_PREVIOUS, naming it when malformed', () => {
    const k = 'ab'.repeat(32);
    expect(loadConfig({ ENCRYPTION_KEY_PREVIOUS: k }).encryptionKeyPrevious).toEqual(Buffer.from(k, 'hex'));
    expect(() => loadConfig({ ENCRYPTION_KEY_PREVIOUS: 'nope' })).toThrow(/ENCRYPTION_KEY_PREVIOUS must be 64 hex characters/);
  });
});

describe('readableProviderMessage', () => {
  it("takes the provider's words out of a JSON error body, and leaves other text alone", async () => {
    const { readableProviderMessage } = await import('../../src/domain/llm/call.ts');
    expect(
      readableProviderMessage(
        '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"r"}',
      ),
    ).toBe('401 authentication_error: invalid x-api-key');
    expect(readableProviderMessage('{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}')).toBe(
      'INVALID_ARGUMENT: API key not valid.',
    );
    expect(readableProviderMessage('401 Incorrect API key provided')).toBe('401 Incorrect API key provided');
    expect(readableProviderMessage('500 {not json')).toBe('500 {not json');
    expect(readableProviderMessage('502 {"detail":"bad gateway"}')).toBe('502 {"detail":"bad gateway"}');
  });
});
