import { describe, expect, it } from 'vitest';
import { buildManagedModels, managedModelProbes } from '../../src/domain/managed-models/index.ts';
import { createModelMatcher } from '../../src/domain/models/matcher.ts';
import { compileRe2 } from '../../src/domain/regex.ts';
import type { StoredModel } from '../../src/store/models.ts';

const P = 'project-1';
let seq = 0;
function model(matchPattern: string, over: Partial<StoredModel> = {}): StoredModel {
  seq += 1;
  return {
    id: `m${seq}`,
    modelName: `model-${seq}`,
    matchPattern,
    unit: 'TOKENS',
    startDate: null,
    tokenizerId: null,
    tokenizerConfig: null,
    pricingTiers: [],
    projectId: null,
    createdAt: new Date(0),
    ...over,
  };
}

describe('createModelMatcher', () => {
  it('matches case-insensitively via a leading (?i) and case-sensitively without it', () => {
    const ci = model('(?i)^(openai/)?(gpt-4o)$');
    const cs = model('^(gpt-4o-mini)$');
    const m = createModelMatcher([ci, cs], P);
    expect(m.match('GPT-4o')).toBe(ci);
    expect(m.match('openai/gpt-4o')).toBe(ci);
    expect(m.match('gpt-4o-mini')).toBe(cs);
    expect(m.match('GPT-4O-MINI')).toBeNull();
  });

  it('is unanchored unless the pattern anchors, and does not trim the name', () => {
    const loose = model('claude');
    const m = createModelMatcher([loose], P);
    expect(m.match('anthropic/claude-3-opus')).toBe(loose);
    expect(createModelMatcher([model('^gpt$')], P).match(' gpt')).toBeNull();
  });

  it('keeps Postgres-style unescaped dots and double $', () => {
    const dot = model('(?i)^(openai/)?(gpt-4.1)$');
    expect(createModelMatcher([dot], P).match('gpt-4x1')).toBe(dot);
    const dd = model('(?i)^(anthropic\\/)?(claude-x)(.+)$$');
    expect(createModelMatcher([dd], P).match('anthropic/claude-x-1')).toBe(dd);
  });

  it('prefers project models over managed ones regardless of start date', () => {
    const managed = model('(?i)^gpt-4o$', { startDate: new Date('2030-01-01') });
    const own = model('(?i)^gpt-4o$', { projectId: P });
    expect(createModelMatcher([managed, own], P).match('gpt-4o')).toBe(own);
  });

  it('picks the newest start date, nulls last, then input order', () => {
    const pattern = '(?i)^(gpt-)(35|3.5)(-turbo)?$';
    const none = model(pattern, { projectId: P });
    const early = model(pattern, { projectId: P, startDate: new Date('2021-01-01T00:00:00Z') });
    const late = model(pattern, { projectId: P, startDate: new Date('2021-01-01T10:00:00Z') });
    expect(createModelMatcher([none, early, late], P).match('gpt-3.5-turbo')).toBe(late);
    const a = model('x'),
      b = model('x');
    expect(createModelMatcher([a, b], P).match('x')).toBe(a);
    expect(createModelMatcher([b, a], P).match('x')).toBe(b);
  });

  it('at a time: the definition in force then (newest start date not after it), project before managed', () => {
    const pattern = '(?i)^gpt-4o$';
    const none = model(pattern, { projectId: P });
    const may = model(pattern, { projectId: P, startDate: new Date('2026-05-01T00:00:00Z') });
    const june = model(pattern, { projectId: P, startDate: new Date('2026-06-01T00:00:00Z') });
    const managedJuly = model(pattern, { startDate: new Date('2026-07-01T00:00:00Z') });
    const m = createModelMatcher([none, may, june, managedJuly], P);
    expect(m.match('gpt-4o', new Date('2026-06-15T00:00:00Z'))).toBe(june);
    // the start date itself is in force
    expect(m.match('gpt-4o', new Date('2026-06-01T00:00:00Z'))).toBe(june);
    expect(m.match('gpt-4o', new Date('2026-05-31T23:59:59Z'))).toBe(may);
    // before every dated definition: the undated one
    expect(m.match('gpt-4o', new Date('2026-01-01T00:00:00Z'))).toBe(none);
    // project definitions come first even when a managed one is newer and in force
    expect(m.match('gpt-4o', new Date('2026-08-01T00:00:00Z'))).toBe(june);
    // only future definitions: none in force, then the managed one once it is
    const future = createModelMatcher([model(pattern, { projectId: P, startDate: new Date('2026-06-01') }), managedJuly], P);
    expect(future.match('gpt-4o', new Date('2026-05-01'))).toBeNull();
    expect(future.match('gpt-4o', new Date('2026-07-02'))).toBe(future.match('gpt-4o', new Date('2026-06-02')));
    // without a time: Langfuse's pick, the newest start date (cached lookups do not change it)
    expect(m.match('gpt-4o')).toBe(june);
  });

  it('ignores models of other projects', () => {
    const other = model('^x$', { projectId: 'project-2' });
    expect(createModelMatcher([other], P).match('x')).toBeNull();
  });

  it('returns null for empty or absent names and when nothing matches', () => {
    const m = createModelMatcher([model('.*')], P);
    expect(m.match('')).toBeNull();
    expect(m.match(null)).toBeNull();
    expect(m.match(undefined)).toBeNull();
    expect(createModelMatcher([], P).match('gpt-4o')).toBeNull();
  });

  it('skips patterns that do not compile instead of throwing', () => {
    const bad = model('(?<=x)gpt', { projectId: P });
    const broken = model('(', { projectId: P });
    const good = model('gpt');
    const m = createModelMatcher([bad, broken, good], P);
    expect(m.match('xgpt')).toBe(good);
  });

  it('memoises per name (including misses) and stays correct past the bound', () => {
    const m = createModelMatcher([model('^n\\d+$')], P);
    for (let i = 0; i < 10_050; i++) expect(m.match(`n${i}`)).not.toBeNull();
    expect(m.match('n0')).not.toBeNull();
    expect(m.match('zzz')).toBeNull();
    expect(m.match('zzz')).toBeNull();
  });

  it('agrees with per-pattern matching on the whole managed list', () => {
    const managed: StoredModel[] = buildManagedModels(new Date('2026-11-22T12:00:00Z')).map((d) => ({
      ...d,
      projectId: null,
      createdAt: new Date(0),
    }));
    const m = createModelMatcher(managed, P);
    const compiled = managed.map((d) => ({ d, re: compileRe2(d.matchPattern) as { test(s: string): boolean } }));
    const probes = [...managedModelProbes(new Date('2026-11-22T12:00:00Z')).values()].flat();
    expect(probes.length).toBeGreaterThan(150);
    for (const probe of [...probes, 'unknown-model', 'GPT-4O', 'openai/gpt-4o-mini']) {
      const naive = compiled.find(({ re }) => re.test(probe))?.d ?? null;
      expect(m.match(probe)?.id ?? null, probe).toBe(naive?.id ?? null);
    }
  });
});
