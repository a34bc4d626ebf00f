// CSV built in the browser from numbers already on screen: RFC 4180 quoting (a model or user
// name may hold commas, quotes or line breaks), CRLF rows, numbers in plain decimals (a
// spreadsheet reads 1e-7, a person comparing with the screen does not), and text that a
// spreadsheet would run as a formula (=, +, -, @ first) defused with a leading quote.

export type Cell = string | number | null | undefined;

/** 1e-7 → "0.0000001", 1.5e+21 → "1500000000000000000000": every digit of the number, no exponent */
export function plainNumber(n: number): string {
  if (!Number.isFinite(n)) return '';
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, int, frac = '', exp] = m as unknown as [string, string, string, string | undefined, string];
  const digits = int + frac;
  const point = int.length + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

function cell(v: Cell): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return plainNumber(v);
  const text = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const toCsv = (rows: Cell[][]): string => rows.map((r) => `${r.map(cell).join(',')}\r\n`).join('');

/** saves `rows` as `filename` through a temporary object URL (nothing leaves the browser) */
export function downloadCsv(filename: string, rows: Cell[][]): void {
  const url = URL.createObjectURL(new Blob([toCsv(rows)], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // the click has handed the blob to the download; a later revoke keeps Safari from losing it
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
