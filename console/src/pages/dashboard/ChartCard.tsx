// One chart of the dashboard in its card: its error, "Loading…" until a first answer, what to
// send when the range has nothing to draw, else the chart with its numbers and CSV.
import type { ReactNode } from 'react';
import type { ProblemText } from '../../api.ts';
import { Chart } from '../../components/Chart.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { axisBucket, displayBucket } from './range.ts';
import type { ChartData } from './series.ts';

export function ChartCard({
  id,
  title,
  chart,
  error,
  empty,
  note,
  format,
  csv,
}: {
  id: string;
  title: string;
  /** undefined until the first complete answer */
  chart: ChartData | undefined;
  error: ProblemText | undefined;
  empty: { title: string; hint: ReactNode };
  note?: ReactNode;
  format: (v: number) => string;
  csv: { filename: string; labelHeader: string };
}) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <ErrorBanner problem={error} title={title} />
      {!chart && !error ? <p className="muted">Loading…</p> : null}
      {chart && chart.series.length === 0 ? <EmptyState title={empty.title}>{empty.hint}</EmptyState> : null}
      {note}
      {chart && chart.series.length > 0 ? (
        <Chart
          title={title}
          labels={chart.labels}
          series={chart.series}
          stacked
          format={format}
          formatLabel={displayBucket}
          formatTick={axisBucket}
          csv={csv}
        />
      ) : null}
    </section>
  );
}
