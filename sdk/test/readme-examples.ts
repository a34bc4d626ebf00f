// The SDK README's worked examples, one function per group, type-checked with the repo (make
// typecheck) and run against the msw mocks (readme.test.ts). Each README block is a function body
// here, verbatim: readme.test.ts fails when a block of sdk/README.md is not found in this file.
import { type IngestionEvent, type Tally, TallyApiError, TallyNetworkError, usageFromOpenAI } from '../index.ts';

export const examples: Record<string, (tally: Tally) => Promise<unknown>> = {
  async models(tally) {
    // every page, with the readable iterator
    for await (const model of tally.models.iterate({ query: { limit: 100 } })) console.log(model.modelName, model.matchPattern);
    // a project model beats a managed one with the same pattern
    const { data: created } = await tally.models.create({
      body: {
        modelName: 'ft:gpt-4o-mini:acme',
        matchPattern: '(?i)^ft:gpt-4o-mini:acme(:.*)?$',
        unit: 'TOKENS',
        inputPrice: 0.0000003,
        outputPrice: 0.0000012,
      },
    });
    await tally.models.delete({ path: { id: created.id } });
    return created;
  },

  async metrics(tally) {
    // rows are typed from the query: providedModelName, time_dimension, sum_totalCost, p95_latency
    const rows = await tally.metrics.query({
      view: 'observations',
      dimensions: [{ field: 'providedModelName' }],
      metrics: [
        { measure: 'totalCost', aggregation: 'sum' },
        { measure: 'latency', aggregation: 'p95' },
      ],
      timeDimension: { granularity: 'day' },
      fromTimestamp: '2026-11-01T00:00:00Z',
      toTimestamp: '2026-11-08T00:00:00Z',
    });
    for (const row of rows) console.log(row.time_dimension, row.providedModelName, row.sum_totalCost, row.p95_latency);
    return rows;
  },

  async ingestion(tally) {
    // events are batched, sent through this client (auth, retries) and resent on a transient failure
    const batcher = tally.ingestion.batcher({ onError: (f) => console.warn(f.kind, f.events.length, f.error) });
    const now = new Date().toISOString();
    batcher.add({
      id: crypto.randomUUID(),
      timestamp: now,
      type: 'trace-create',
      body: { id: 'trace-1', name: 'checkout', userId: 'user-42' },
    });
    const completion = { usage: { prompt_tokens: 812, completion_tokens: 96, total_tokens: 908 } }; // an OpenAI chat completion
    const event: IngestionEvent = {
      id: crypto.randomUUID(),
      timestamp: now,
      type: 'generation-create',
      body: {
        id: 'gen-1',
        traceId: 'trace-1',
        name: 'answer',
        model: 'gpt-4o-mini',
        startTime: now,
        usageDetails: usageFromOpenAI(completion.usage),
      },
    };
    batcher.add(event);
    await batcher.shutdown(); // flushes what is queued
    return batcher.stats;
  },

  async observations(tally) {
    const { data: generation } = await tally.observations.get({ path: { observationId: 'gen-1' } });
    console.log(generation.calculatedTotalCost, generation.usageDetails);
    for await (const o of tally.observations.iterate({ query: { type: 'GENERATION', userId: 'user-42' } })) console.log(o.id, o.model);
    const { data: trace } = await tally.traces.get({ path: { traceId: 'trace-1' } });
    return trace.observations.length;
  },

  async scores(tally) {
    const { data } = await tally.scores.create({ body: { name: 'helpful', value: 1, dataType: 'BOOLEAN', traceId: 'trace-1' } });
    return data.id;
  },

  async llmConnections(tally) {
    const { data: connection } = await tally.llmConnections.upsert({
      body: { provider: 'openai', adapter: 'openai', secretKey: process.env.OPENAI_API_KEY ?? 'sk-…', customModels: ['gpt-4o-mini'] },
    });
    console.log(connection.displaySecretKey); // masked: the secret never comes back
    const { data: probe } = await tally.llmConnections.test({ path: { id: connection.id }, body: { model: 'gpt-4o-mini' } });
    return probe;
  },

  async evaluations(tally) {
    // one judgement now, through a stored connection; the score is written when a target is given
    const { data } = await tally.evaluations.judge({
      body: {
        provider: 'openai',
        model: 'gpt-4o-mini',
        prompt: 'Is the answer correct?\nQuestion: {{question}}\nAnswer: {{answer}}',
        variables: { question: 'Capital of France?', answer: 'Paris' },
        outputDefinition: {
          dataType: 'NUMERIC',
          score: { description: 'Correctness from 0 to 1', minValue: 0, maxValue: 1 },
          reasoning: { description: 'Why this score' },
        },
      },
    });
    return data;
  },

  async alerts(tally) {
    const { data: alert } = await tally.alerts.create({
      body: {
        name: 'Any user above $5 a day',
        query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'sum' } },
        groupBy: { field: 'userId', topN: 100 },
        windowMinutes: 1440,
        condition: { operator: 'gt', warning: 4, alert: 5 },
        webhook: { url: 'https://hooks.example.com/tally', secret: 'whsec-at-least-16-chars' },
      },
    });
    return alert.id;
  },

  async errors(tally) {
    try {
      await tally.models.get({ path: { id: 'no-such-model' } });
    } catch (error) {
      if (error instanceof TallyApiError) console.log(error.status, error.body, error.requestId);
      else if (error instanceof TallyNetworkError) console.log('no answer', error.cause);
    }
    // or an error as a value: `error` is the spec-typed body of the status
    const { data, error } = await tally.models.get({ path: { id: 'no-such-model' }, throwOnError: false });
    return data ?? error;
  },

  async health(tally) {
    const { data } = await tally.health.check();
    return data.status;
  },
};
