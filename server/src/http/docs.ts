// The readable side of the spec: the bundled spec at /api/public/openapi.json and an
// interactive reference at /docs (Scalar's standalone bundle, served from node_modules: no
// CDN, works offline). Read-only and unauthenticated; mounted before the openapi-backend
// router, so these routes need no entry in the spec.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { SPEC_PATH } from './openapi.ts';

export const SPEC_ROUTE = '/api/public/openapi.json';
export const DOCS_ROUTE = '/docs';

const SCALAR_BROWSER_DIR = fileURLToPath(new URL('../../../node_modules/@scalar/api-reference/dist/browser/', import.meta.url));

// no external fonts, no "ask AI" agent, no telemetry, no request proxy: nothing leaves the host
const SCALAR_CONFIG = {
  url: SPEC_ROUTE,
  withDefaultFonts: false,
  defaultOpenAllTags: true,
  hideClientButton: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
};

// not #api-reference: the bundle mounts an element of that id itself, with its default configuration
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Tally API reference</title>
</head>
<body>
  <div id="tally-reference"></div>
  <script src="${DOCS_ROUTE}/assets/standalone.js"></script>
  <script>Scalar.createApiReference('#tally-reference', ${JSON.stringify(SCALAR_CONFIG)});</script>
</body>
</html>
`;

export function docsRouter(): Router {
  const router = express.Router();
  let spec: string | undefined; // the bundled spec does not change while the server runs
  router.get(SPEC_ROUTE, (_req, res) => {
    spec ??= readFileSync(SPEC_PATH, 'utf8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('access-control-allow-origin', '*');
    res.type('application/json').send(spec);
  });
  router.get([DOCS_ROUTE, `${DOCS_ROUTE}/`], (_req, res) => {
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(PAGE);
  });
  router.use(`${DOCS_ROUTE}/assets`, express.static(SCALAR_BROWSER_DIR, { index: false, fallthrough: false, maxAge: '1h' }));
  return router;
}
