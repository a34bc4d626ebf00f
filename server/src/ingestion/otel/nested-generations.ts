// One LLM call recorded twice: two instrumentations of the same call nest their spans (the
// Anthropic SDK's own `anthropic.messages.create` inside OpenInference's `Anthropic Messages`,
// an SDK span inside a framework's), and both are generations with the same usage. Stored as
// they come, the call is billed twice (Langfuse does so too). A generation whose direct parent or
// child is a generation with the same usage buckets is kept as a span, whichever of the two
// arrives second: spans of one call often come in separate exports (SimpleSpanProcessor), so
// the process remembers the generations it mapped recently.
import type { MappedSpan, RawEvent } from './map.ts';

interface Seen {
  parent: string | null;
  fingerprint: string;
}

/** the usage buckets of a generation, without `total` (one producer sends it, the other not) */
function fingerprint(body: Record<string, unknown>): string | null {
  const usage = body.usageDetails as Record<string, unknown> | undefined;
  if (!usage || typeof usage !== 'object') return null;
  const keys = Object.keys(usage)
    .filter((k) => k !== 'total' && typeof usage[k] === 'number' && (usage[k] as number) > 0)
    .sort();
  return keys.length ? keys.map((k) => `${k}=${usage[k]}`).join(',') : null;
}

export class RecentGenerations {
  private readonly byId = new Map<string, Seen>();
  private readonly children = new Map<string, Set<string>>();
  private readonly max: number;

  constructor(max = 20_000) {
    this.max = max;
  }

  get(key: string): Seen | undefined {
    return this.byId.get(key);
  }

  childFingerprints(key: string): { id: string; fingerprint: string }[] {
    return [...(this.children.get(key) ?? [])].flatMap((id) => {
      const s = this.byId.get(id);
      return s ? [{ id, fingerprint: s.fingerprint }] : [];
    });
  }

  add(key: string, seen: Seen): void {
    if (this.byId.size >= this.max) {
      // oldest first: Map keeps insertion order
      const oldest = this.byId.keys().next().value as string;
      const s = this.byId.get(oldest);
      this.byId.delete(oldest);
      if (s?.parent) this.children.get(s.parent)?.delete(oldest);
    }
    this.byId.set(key, seen);
    if (seen.parent) {
      const set = this.children.get(seen.parent) ?? new Set<string>();
      set.add(key);
      this.children.set(seen.parent, set);
    }
  }
}

const GENERATION_EVENTS = new Set(['generation-create', 'embedding-create']);

/** the spans of one export, with second records of a call already seen turned into spans */
export function keepOneGenerationPerCall(spans: MappedSpan[], recent: RecentGenerations, projectId: string): MappedSpan[] {
  return spans.map((span) => {
    if ('rejected' in span) return span;
    const obs = span.events.find((e) => GENERATION_EVENTS.has(e.type));
    const fp = obs ? fingerprint(obs.body) : null;
    if (!obs || !fp) return span;
    const key = `${projectId}:${span.traceId}:${span.spanId}`;
    const parentId = typeof obs.body.parentObservationId === 'string' ? obs.body.parentObservationId : null;
    const parentKey = parentId ? `${projectId}:${span.traceId}:${parentId}` : null;
    const parent = parentKey ? recent.get(parentKey) : undefined;
    const twin =
      parent?.fingerprint === fp
        ? parentId
        : recent
            .childFingerprints(key)
            .find((c) => c.fingerprint === fp)
            ?.id.split(':')
            .pop();
    if (!twin) {
      recent.add(key, { parent: parentKey, fingerprint: fp });
      return span;
    }
    return { ...span, events: span.events.map((e) => (e === obs ? asSpan(e, twin) : e)) };
  });
}

function asSpan(e: RawEvent, twin: string): RawEvent {
  const { usageDetails: _u, costDetails: _c, ...body } = e.body;
  const metadata = { ...(body.metadata as Record<string, unknown> | undefined), duplicateGenerationOf: twin };
  return { ...e, id: e.id.replace(/^otel-[a-z]+-/, 'otel-span-'), type: 'span-create', body: { ...body, metadata } };
}
