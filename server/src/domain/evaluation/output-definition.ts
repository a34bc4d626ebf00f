// An evaluator's output definition (the spec's EvaluatorOutputDefinition). Pure: the checks the body schema
// leaves to code (trimmed texts, bound order, required per variant) as zod-style issues, the
// storage check (unique categories), and the trimmed form that is stored.

export type OutputDefinition =
  | { dataType: 'NUMERIC'; reasoning: { description: string }; score: { description: string; minValue?: number; maxValue?: number } }
  | { dataType: 'BOOLEAN'; reasoning: { description: string }; score: { description: string } }
  | {
      dataType: 'CATEGORICAL';
      reasoning: { description: string };
      score: { description: string; categories: string[]; shouldAllowMultipleMatches: boolean };
    };

export interface Issue {
  code: string;
  path: (string | number)[];
  message: string;
}

// unknown[]: includes() is asked about any value of a body
const DATA_TYPES: readonly unknown[] = ['NUMERIC', 'BOOLEAN', 'CATEGORICAL'] satisfies OutputDefinition['dataType'][];
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function text(v: unknown, path: (string | number)[], issues: Issue[]): string | undefined {
  if (typeof v !== 'string') {
    issues.push({ code: 'invalid_type', path, message: 'Invalid input: expected string' });
    return undefined;
  }
  const t = v.trim();
  if (t.length < 1) {
    issues.push({ code: 'too_small', path, message: 'Too small: expected string to have >=1 characters' });
    return undefined;
  }
  return t;
}

/** issues of a body's `outputDefinition` (paths from the body root), and the trimmed definition when there are none */
export function parseOutputDefinition(
  raw: unknown,
  at: (string | number)[] = ['outputDefinition'],
): { issues: Issue[]; value?: OutputDefinition } {
  const issues: Issue[] = [];
  if (!isObject(raw)) return { issues: [{ code: 'invalid_type', path: at, message: 'Invalid input: expected object' }] };
  if (!DATA_TYPES.includes(raw.dataType))
    return { issues: [{ code: 'invalid_union', path: [...at, 'dataType'], message: 'Invalid input' }] };
  let reasoning: ReturnType<typeof text> | undefined;
  if (isObject(raw.reasoning)) reasoning = text(raw.reasoning.description, [...at, 'reasoning', 'description'], issues);
  else issues.push({ code: 'invalid_type', path: [...at, 'reasoning'], message: 'Invalid input: expected object' });
  if (!isObject(raw.score)) {
    issues.push({ code: 'invalid_type', path: [...at, 'score'], message: 'Invalid input: expected object' });
    return { issues };
  }
  const s = raw.score;
  const description = text(s.description, [...at, 'score', 'description'], issues);
  if (raw.dataType === 'NUMERIC') {
    for (const k of ['minValue', 'maxValue']) {
      if (s[k] !== undefined && (typeof s[k] !== 'number' || !Number.isFinite(s[k])))
        issues.push({ code: 'invalid_type', path: [...at, 'score', k], message: 'Invalid input: expected number' });
    }
    if (!issues.length && typeof s.minValue === 'number' && typeof s.maxValue === 'number' && s.minValue > s.maxValue) {
      issues.push({ code: 'custom', path: [...at, 'score'], message: 'Minimum value must be less than or equal to maximum value' });
    }
    if (issues.length) return { issues };
    const score: { description: string; minValue?: number; maxValue?: number } = { description: description! };
    // no issues: each bound is undefined or a finite number
    if (typeof s.minValue === 'number') score.minValue = s.minValue;
    if (typeof s.maxValue === 'number') score.maxValue = s.maxValue;
    return { issues, value: { dataType: 'NUMERIC', reasoning: { description: reasoning! }, score } };
  }
  if (raw.dataType === 'BOOLEAN') {
    if (issues.length) return { issues };
    return { issues, value: { dataType: 'BOOLEAN', reasoning: { description: reasoning! }, score: { description: description! } } };
  }
  const categories: string[] = [];
  if (!Array.isArray(s.categories))
    issues.push({ code: 'invalid_type', path: [...at, 'score', 'categories'], message: 'Invalid input: expected array' });
  else {
    s.categories.forEach((c: unknown, i: number) => {
      const t = text(c, [...at, 'score', 'categories', i], issues);
      if (t !== undefined) categories.push(t);
    });
    if (s.categories.length < 2)
      issues.push({ code: 'too_small', path: [...at, 'score', 'categories'], message: 'Too small: expected array to have >=2 items' });
  }
  const shouldAllowMultipleMatches = s.shouldAllowMultipleMatches;
  if (typeof shouldAllowMultipleMatches !== 'boolean')
    issues.push({ code: 'invalid_type', path: [...at, 'score', 'shouldAllowMultipleMatches'], message: 'Invalid input: expected boolean' });
  // a non-boolean has an issue: the second test only tells the compiler
  if (issues.length || typeof shouldAllowMultipleMatches !== 'boolean') return { issues };
  return {
    issues,
    value: {
      dataType: 'CATEGORICAL',
      reasoning: { description: reasoning! },
      score: { description: description!, categories, shouldAllowMultipleMatches },
    },
  };
}

/** the storage-schema issues (400 invalid_request `Invalid request data`): duplicate categories */
export function storageOutputDefinitionIssues(def: OutputDefinition, at: (string | number)[] = ['outputDefinition']): Issue[] {
  if (def.dataType !== 'CATEGORICAL') return [];
  return new Set(def.score.categories).size === def.score.categories.length
    ? []
    : [{ code: 'custom', path: [...at, 'score', 'categories'], message: 'Categories must be unique' }];
}
