// The outcomes as JUnit XML, the report format every CI system reads: one testsuite, one
// testcase per replayed example (classname = operationId), failures with their problems.
import type { Outcome } from './replay.ts';

const escapeXml = (s: string) =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    // characters XML 1.0 cannot hold at all
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junitXml(outcomes: Outcome[], durationMs: number): string {
  const failed = outcomes.filter((o) => !o.ok && !o.skipped).length;
  const skipped = outcomes.filter((o) => o.skipped).length;
  const cases = outcomes.map((o) => {
    const attrs = `classname="${escapeXml(o.case.op.operationId)}" name="${escapeXml(`${o.case.status} ${o.case.name}`)}"`;
    if (o.skipped) return `    <testcase ${attrs}><skipped message="${escapeXml(o.skipped)}"/></testcase>`;
    if (o.ok) return `    <testcase ${attrs}/>`;
    return `    <testcase ${attrs}><failure message="${escapeXml(o.problems[0]?.split('\n')[0] ?? 'failed')}">${escapeXml(o.problems.join('\n'))}</failure></testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="${outcomes.length}" failures="${failed}" skipped="${skipped}" time="${(durationMs / 1000).toFixed(3)}">
  <testsuite name="tally-conformance" tests="${outcomes.length}" failures="${failed}" skipped="${skipped}" time="${(durationMs / 1000).toFixed(3)}">
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}
