// Until a server's exporter has shipped every change to ClickHouse (GET /health's analytics.lagRows).
export async function exportCaughtUp(baseUrl: string, attempts = 200): Promise<void> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    last = ((await (await fetch(`${baseUrl}/api/public/health`)).json()) as { analytics: unknown }).analytics;
    if ((last as { lagRows?: number }).lagRows === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the exporter did not catch up: ${JSON.stringify(last)}`);
}
