import { type Cell, downloadCsv } from './csv.ts';
import './csv-button.css';

/** "Download CSV" for one chart or table; `rows` (header first) are built only when clicked */
export function CsvButton({ what, filename, rows }: { what: string; filename: string; rows: () => Cell[][] }) {
  return (
    <button
      type="button"
      className="secondary csv-button"
      aria-label={`Download ${what} as CSV`}
      onClick={() => downloadCsv(filename, rows())}
    >
      CSV
    </button>
  );
}
