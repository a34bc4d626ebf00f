// A bar or line chart (chart.js, only the parts used are registered) with its numbers as a
// table under it: readable without the picture, by a screen reader, and by the tests.
import { useEffect, useRef } from 'react';
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
}

const PALETTE = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4', '#ec4899', '#84cc16', '#64748b', '#a16207'];

export function Chart({
  title,
  labels,
  series,
  kind = 'bar',
  stacked = false,
  format = (v) => String(v),
}: {
  title: string;
  labels: string[];
  series: Series[];
  kind?: 'bar' | 'line';
  stacked?: boolean;
  format?: (v: number) => string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current;
    // jsdom (the component tests) has no 2D context; the table below carries the numbers
    if (!el || /jsdom/i.test(navigator.userAgent)) return;
    const chart = new ChartJs(el, {
      type: kind,
      data: {
        labels,
        datasets: series.map((s, i) => ({
          label: s.label,
          data: s.values,
          backgroundColor: PALETTE[i % PALETTE.length],
          borderColor: PALETTE[i % PALETTE.length],
        })),
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
  }, [kind, stacked, labels, series, format]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
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
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((l, i) => (
                <tr key={l}>
                  <th scope="row">{l}</th>
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
