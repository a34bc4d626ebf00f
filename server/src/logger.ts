import { pino, type Logger } from 'pino';

export type { Logger };

// Credentials can reach a log line only through these paths; pino removes them.
const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  '*.secretKey',
  '*.secret_key',
  '*.apiKey',
  '*.extraHeaders',
  'secretKey',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'tally' } });
}
