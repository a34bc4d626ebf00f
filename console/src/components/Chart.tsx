// A bar or line chart (chart.js, only the parts used are registered) with its numbers as a
// table under it: readable without the picture, by a screen reader, and by the tests; and, with
// `csv`, the same numbers as a download.
import { useEffect, useRef } from 'react';
import { colorFor } from './colors.ts';
import { CsvButton } from './CsvButton.tsx';
import './chart.css';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart as ChartJs,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';

ChartJs.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series {
  label: string;
  values: number[];
  /** by default the label's own colour (colors.ts), so a series looks the same on every chart */
  color?: string;
}

const identity = (l: string) => l;

export function Chart({
  title,
  labels,
  series,
  kind = 'bar',
  stacked = false,
  format = (v) => String(v),
  formatLabel = identity,
  formatTick = formatLabel,
  csv,
}: {
  title: string;
  /** the x values as data (ISO buckets); `formatLabel` says how they read on screen */
  labels: string[];
  series: Series[];
  kind?: 'bar' | 'line';
  stacked?: boolean;
  format?: (v: number) => string;
  formatLabel?: (label: string) => string;
  /** the x axis's shorter reading of a label; the numbers table keeps `formatLabel`'s */
  formatTick?: (label: string) => string;
  /** offers the numbers as a CSV: the raw labels under `labelHeader`, one column per series, unformatted values */
  csv?: { filename: string; labelHeader: string };
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current;
    // jsdom (the component tests) has no 2D context; the table below carries the numbers
    if (!el || /jsdom/i.test(navigator.userAgent)) return;
    const chart = new ChartJs(el, {
      type: kind,
      data: {
        labels: labels.map(formatTick),
        datasets: series.map((s) => {
          const color = s.color ?? colorFor(s.label);
          // a white edge between stacked segments keeps two series of one colour apart
          return kind === 'bar'
            ? { label: s.label, data: s.values, backgroundColor: color, borderColor: '#fff', borderWidth: stacked ? 1 : 0 }
            : { label: s.label, data: s.values, backgroundColor: color, borderColor: color };
        }),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: {
          legend: { position: 'bottom' },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${format(Number(c.raw))}` } },
        },
        scales: { x: { stacked }, y: { stacked, beginAtZero: true, ticks: { callback: (v) => format(Number(v)) } } },
      },
    });
    return () => chart.destroy();
  }, [kind, stacked, labels, series, format, formatTick]);
  return (
    <figure className="chart">
      <figcaption>
        <span>{title}</span>
        {csv ? (
          <CsvButton
            what={title}
            filename={csv.filename}
            rows={() => [
              [csv.labelHeader, ...series.map((s) => s.label)],
              ...labels.map((l, i) => [l, ...series.map((s) => s.values[i] ?? 0)]),
            ]}
          />
        ) : null}
      </figcaption>
      <div className="chart-canvas">
        <canvas ref={canvas} role="img" aria-label={title} />
      </div>
      <details>
        <summary>Numbers</summary>
        {/* one column per series: with eight models and "other" it is wider than a phone */}
        <div className="table-wrap">
          <table aria-label={`${title}: numbers`}>
            <thead>
              <tr>
                <th scope="col"> </th>
                {series.map((s) => (
                  <th scope="col" key={s.label}>
                    <span className="swatch" style={{ background: s.color ?? colorFor(s.label) }} aria-hidden="true" />
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((l, i) => (
                <tr key={l}>
                  <th scope="row">{formatLabel(l)}</th>
                  {series.map((s) => (
                    <td key={s.label}>{format(s.values[i] ?? 0)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
