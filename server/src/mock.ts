// `make mock`: serves every operation of the spec from its examples, with the same
// request validation as the real server, so a frontend can build against it with no
// database. The answer comes from sdk/mocks/examples.ts, the picker the msw handlers
// (`@tally/sdk/mocks`) use too: the example a `Prefer: example=<name>` (or `code=<status>`)
// header names, else the first example of the lowest success status. Any Basic credentials
// are accepted. The reference (/docs) and the spec (/api/public/openapi.json) are served too.
import express, { type Request, type Response } from 'express';
import type { Context } from 'openapi-backend';
import { createBackend } from './http/openapi.ts';
import { issuesFromAjv } from './spec/issues.ts';
import { BODY_LIMIT_BYTES } from './http/app.ts';
import { docsRouter } from './http/docs.ts';
import { publicApiCors } from './http/cors.ts';
import { AUTH_MESSAGES } from './http/auth.ts';
import { answerFor, parsePrefer } from '../../sdk/mocks/examples.ts';
import { checkBody } from '../../sdk/mocks/validate.ts';
import bundledSpec from '../../generated/openapi.json' with { type: 'json' };

export async function createMockApp() {
  const api = await createBackend();
  const app = express();
  // as the server: a frontend on another origin (a Vite dev server, say) calls the mock directly
  app.use(publicApiCors());
  app.use(docsRouter());
  app.use(express.json({ limit: BODY_LIMIT_BYTES }));
  api.register('notFound', (c: Context, _q: Request, res: Response) =>
    res.status(404).json({ message: `No route for ${c.request.method} ${c.request.path}`, error: 'NotFoundError' }),
  );
  api.register('methodNotAllowed', (_c: Context, _q: Request, res: Response) =>
    res.status(405).json({ message: 'Method not allowed', error: 'MethodNotAllowedError' }),
  );
  for (const operation of api.getOperations()) {
    api.register(operation.operationId!, async (c: Context, req: Request, res: Response) => {
      const secured = (c.operation.security ?? []).some((s) => Object.keys(s).length > 0);
      if (secured && !req.headers.authorization) return res.status(401).json({ message: AUTH_MESSAGES.missing });
      // the body as the msw handlers check it (one check, the server's 400 in each operation's style)
      const entry = {
        operationId: operation.operationId!,
        method: c.operation.method,
        path: c.operation.path,
        operation: c.operation as never,
      };
      const refused = await checkBody(bundledSpec, entry, req.body);
      if (refused) return res.status(refused.status).json(refused.body);
      const v = api.validator.validateRequest(c.request, c.operation);
      if (!v.valid) return res.status(400).json({ message: 'Invalid request data', error: issuesFromAjv(v.errors ?? []) });
      const { status, body, example, contentType } = answerFor(
        c.operation as never,
        parsePrefer(req.headers.prefer as string | undefined),
        req.body,
      );
      if (example) res.setHeader('x-tally-mock-example', example);
      if (contentType === null) return res.status(status).end();
      res.status(status).json(body);
    });
  }
  app.use((req, res) =>
    api.handleRequest(
      {
        method: req.method,
        path: req.path,
        headers: req.headers as Record<string, string>,
        query: req.query as Record<string, string>,
        body: req.body,
      },
      req,
      res,
    ),
  );
  // body-parser's errors: `type` names the failure
  app.use((err: { type?: string; message?: string }, _req: Request, res: Response, _next: unknown) => {
    res
      .status(err?.type === 'entity.too.large' ? 413 : 400)
      .json({ message: `Invalid request body: ${err.message}`, error: 'InvalidRequestError' });
  });
  return app;
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3000);
  const app = await createMockApp();
  app.listen(port, () => console.log(`Tally mock (examples from openapi/) on http://127.0.0.1:${port}`));
}
