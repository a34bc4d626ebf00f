// `make mock`: serves every operation of the spec from its examples, with the same
// request validation as the real server, so a frontend can build against it with no
// database. Picks the example named in the `Prefer: example=<name>` header, else the
// first example of the lowest success status. Any Basic credentials are accepted.
import express, { type Request, type Response } from 'express';
import type { Context } from 'openapi-backend';
import { createBackend } from './http/openapi.ts';
import { issuesFromAjv } from './http/validation-issues.ts';
import { BODY_LIMIT_BYTES } from './http/app.ts';

type Examples = Record<string, { value?: unknown }>;

export function pickExample(operation: any, prefer: string | undefined): { status: number; body: unknown } {
  const wanted = /example=([\w-]+)/.exec(prefer ?? '')?.[1];
  const statuses = Object.keys(operation.responses ?? {}).sort();
  for (const status of statuses) {
    const examples: Examples = operation.responses[status]?.content?.['application/json']?.examples ?? {};
    if (wanted && examples[wanted]) return { status: Number(status), body: examples[wanted]!.value };
  }
  const ok = statuses.find((s) => s.startsWith('2')) ?? statuses[0]!;
  const examples: Examples = operation.responses[ok]?.content?.['application/json']?.examples ?? {};
  const first = Object.values(examples)[0];
  return { status: Number(ok), body: first?.value ?? null };
}

export async function createMockApp() {
  const api = await createBackend();
  const app = express();
  app.use(express.json({ limit: BODY_LIMIT_BYTES }));
  api.register('notFound', (c: Context, _q: Request, res: Response) => res.status(404).json({ message: `No route for ${c.request.method} ${c.request.path}`, error: 'NotFoundError' }));
  api.register('methodNotAllowed', (_c: Context, _q: Request, res: Response) => res.status(405).json({ message: 'Method not allowed', error: 'MethodNotAllowedError' }));
  for (const operation of api.getOperations()) {
    api.register(operation.operationId!, (c: Context, req: Request, res: Response) => {
      const secured = (c.operation.security ?? []).some((s) => Object.keys(s).length > 0);
      if (secured && !req.headers.authorization) return res.status(401).json({ message: 'No authorization header' });
      const v = api.validator.validateRequest(c.request, c.operation);
      if (!v.valid) return res.status(400).json({ message: 'Invalid request data', error: issuesFromAjv(v.errors ?? []) });
      const { status, body } = pickExample(c.operation, req.headers.prefer as string | undefined);
      res.status(status).json(body);
    });
  }
  app.use((req, res) => api.handleRequest({ method: req.method, path: req.path, headers: req.headers as Record<string, string>, query: req.query as Record<string, string>, body: req.body }, req, res));
  app.use((err: any, _req: Request, res: Response, _next: unknown) => {
    res.status(err?.type === 'entity.too.large' ? 413 : 400).json({ message: `Invalid request body: ${err.message}`, error: 'InvalidRequestError' });
  });
  return app;
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3000);
  const app = await createMockApp();
  app.listen(port, () => console.log(`Tally mock (examples from openapi/) on http://127.0.0.1:${port}`));
}
