// CORS for the public API, as Langfuse has it: any origin (reflected), no credentials, and a
// preflight (OPTIONS) answered 204 before method dispatch. Why any origin is safe here: Tally's
// auth is an explicit `Authorization` header (Basic key pair, or Bearer public key for browser
// ingestion) that a page's script must hold and send itself; nothing ambient authenticates a
// request (no cookies, no WWW-Authenticate challenge, so browsers never cache Basic credentials for
// the origin), and without Access-Control-Allow-Credentials a browser will not expose an answer to a
// credentialed cross-origin request. So a foreign page can do nothing it could not do with the
// keys it already has. Allowed request headers are those the preflight asks for; the exposed ones
// are what a client reads off an answer (request id for support, Retry-After and rate-limit
// headers for backoff, the mock's chosen example).
import cors from 'cors';
import type { RequestHandler } from 'express';

export const EXPOSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-tally-mock-example',
];

export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * the middleware for paths under `/api/public` (and the mock's same paths), matched with their
 * case as the API's routes are (express's own path matching would also take `/API/PUBLIC/…`)
 */
export function publicApiCors(): RequestHandler {
  const handle = cors({
    origin: true,
    credentials: false,
    methods: CORS_METHODS,
    exposedHeaders: EXPOSED_HEADERS,
    // a day: browsers cap it lower (Chromium 2 h), and the answer never changes per origin
    maxAge: 86_400,
    optionsSuccessStatus: 204,
  });
  return (req, res, next) => (req.path.startsWith(PUBLIC_API) ? handle(req, res, next) : next());
}

const PUBLIC_API = '/api/public/';
