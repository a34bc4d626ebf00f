// The web console (console/, built by `make console` into console/dist/) at `/`. Static files
// only: the console calls the public API with the key pair its user typed, like any client, so
// these routes need no auth and no entry in the spec. Mounted before the openapi-backend router.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';

export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

// the console fetches only its own origin; nothing may frame it (its forms hold API keys)
const CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tally</title></head>
<body><h1>Tally</h1><p>The web console is not built. Run <code>make console</code> (or <code>make run</code>, which builds it), then reload.</p>
<p>The API is at <code>/api/public</code>; its reference is at <a href="/docs">/docs</a>.</p></body></html>`;

export function consoleRouter(dist: string = CONSOLE_DIST): Router {
  const router = express.Router();
  const security = (_req: express.Request, res: express.Response, next: express.NextFunction) => {
    res.setHeader('content-security-policy', CSP);
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    next();
  };
  // not router.get: a route would make express answer OPTIONS / itself, outside the API's error shapes
  router.use((req, res, next) => {
    if (req.path !== '/' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    security(req, res, () => {});
    const index = `${dist}index.html`;
    if (!existsSync(index)) return res.status(200).type('html').send(NOT_BUILT);
    res.setHeader('cache-control', 'no-cache'); // the page names the hashed assets of the current build
    res.sendFile(index);
  });
  // content-hashed file names: cache for a year
  router.use('/assets', security, express.static(`${dist}assets`, { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  return router;
}
