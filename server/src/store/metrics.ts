// Stage 4 of the metrics engine: runs the compiled queries (the main one and one per histogram).
import type { CompiledMetrics, HistogramRow, Row } from '../domain/metrics/index.ts';
import type { Db } from './sql.ts';

export async function executeMetrics(
  db: Db,
  compiled: CompiledMetrics,
): Promise<{ rows: Row[]; histograms: { alias: string; rows: HistogramRow[] }[] }> {
  const { rows } = await compiled.main.execute(db);
  const histograms = [];
  for (const h of compiled.histograms) histograms.push({ alias: h.alias, rows: (await h.query.execute(db)).rows as HistogramRow[] });
  return { rows: rows as Row[], histograms };
}
