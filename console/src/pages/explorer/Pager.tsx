// Previous / next as links to the neighbouring pages' URLs: shareable, and back goes back a page.
import type { UtilsMetaResponse } from '../../../../sdk/index.ts';
import type { ExplorerFilters } from '../../links.ts';

export function Pager({
  meta,
  filters,
  href,
  noun,
}: {
  meta: UtilsMetaResponse;
  filters: ExplorerFilters;
  href: (f: ExplorerFilters) => string;
  noun: string;
}) {
  const { page, totalPages, totalItems } = meta;
  const to = (p: number) => href({ ...filters, page: p > 1 ? String(p) : undefined });
  return (
    <nav className="pager" aria-label={`Pages of ${noun}`}>
      {page > 1 ? (
        <a href={to(Math.min(page - 1, Math.max(totalPages, 1)))} rel="prev">
          ← Previous
        </a>
      ) : (
        <span className="muted" aria-hidden="true">
          ← Previous
        </span>
      )}
      <span aria-live="polite">
        Page {page} of {Math.max(totalPages, 1)} · {totalItems.toLocaleString('en-US')} {noun}
      </span>
      {page < totalPages ? (
        <a href={to(page + 1)} rel="next">
          Next →
        </a>
      ) : (
        <span className="muted" aria-hidden="true">
          Next →
        </span>
      )}
    </nav>
  );
}
