// The SDK's two error types: the server answered with a non-2xx (TallyApiError), or no answer
// came back at all (TallyNetworkError). Both extend TallyError, so one `catch` can tell them apart.

export class TallyError extends Error {
  override name = 'TallyError';
}

/** The server answered with a non-2xx status. `body` is the spec's error body for that status. */
export class TallyApiError<TBody = unknown> extends TallyError {
  override name = 'TallyApiError';
  readonly status: number;
  readonly body: TBody;
  /** The `x-request-id` response header: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;

  constructor(init: { status: number; body: TBody; requestId?: string; method?: string; url?: string }) {
    const detail =
      init.body && typeof init.body === 'object' && 'message' in init.body
        ? String((init.body as { message: unknown }).message)
        : typeof init.body === 'string' && init.body
          ? init.body.slice(0, 200)
          : '';
    super(
      `${init.method ?? 'request'} ${init.url ?? ''} failed with ${init.status}` +
        (detail ? `: ${detail}` : '') +
        (init.requestId ? ` (request id ${init.requestId})` : ''),
    );
    this.status = init.status;
    this.body = init.body;
    this.requestId = init.requestId;
    this.method = init.method;
    this.url = init.url;
  }
}

/** No response: connection refused or reset, DNS failure, TLS error (after any retries). */
export class TallyNetworkError extends TallyError {
  override name = 'TallyNetworkError';
  readonly method: string | undefined;
  readonly url: string | undefined;

  constructor(init: { cause: unknown; method?: string; url?: string }) {
    const reason =
      init.cause instanceof Error
        ? init.cause.cause instanceof Error
          ? init.cause.cause.message
          : init.cause.message
        : String(init.cause);
    super(`${init.method ?? 'request'} ${init.url ?? ''} got no response: ${reason}`, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
  }
}
