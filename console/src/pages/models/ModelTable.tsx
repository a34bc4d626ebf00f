// Managed and project models in one table, a page at a time, filtered by the search box: a model
// name as one sends it (`claude-3-5-sonnet-20241022`) finds the definitions whose pattern matches
// it, as the server matches, first; then names and patterns that contain the text. Project models
// can be deleted after a second, explicit press; managed ones are read-only on the server.
import { useEffect, useState } from 'react';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import type { Model } from '../../../../sdk/index.ts';
import { formatPrice, perMillion } from '../../format.ts';
import { conditionsSummary, formatDate, pricesText } from './format.ts';

export const PAGE_SIZE = 25;

/**
 * The pattern as JavaScript reads it: Langfuse patterns start with RE2's `(?i)` for "ignore
 * case", which JavaScript spells as a flag. null for a pattern JavaScript cannot read (RE2-only
 * syntax): the search then falls back to text.
 */
export function patternOf(matchPattern: string): RegExp | null {
  const insensitive = matchPattern.startsWith('(?i)');
  try {
    return new RegExp(insensitive ? matchPattern.slice(4) : matchPattern, insensitive ? 'i' : '');
  } catch {
    return null;
  }
}

export interface Found {
  model: Model;
  /** the searched text is a model name this definition's pattern matches */
  byPattern: boolean;
}

/** the models the search finds: pattern matches first (in list order), then text matches */
export function searchModels(models: Model[], search: string): Found[] {
  const text = search.trim();
  if (!text) return models.map((model) => ({ model, byPattern: false }));
  const q = text.toLowerCase();
  const byPattern: Found[] = [];
  const byText: Found[] = [];
  for (const model of models) {
    if (patternOf(model.matchPattern)?.test(text)) byPattern.push({ model, byPattern: true });
    else if (model.modelName.toLowerCase().includes(q) || model.matchPattern.toLowerCase().includes(q))
      byText.push({ model, byPattern: false });
  }
  return [...byPattern, ...byText];
}

export function matches(model: Model, search: string): boolean {
  return searchModels([model], search).length > 0;
}

export function ModelTable({
  models,
  search,
  onDeleted,
  onExplain,
}: {
  models: Model[];
  search: string;
  onDeleted: (model: Model) => void;
  onExplain: (modelName: string) => void;
}) {
  const found = searchModels(models, search);
  const pages = Math.max(1, Math.ceil(found.length / PAGE_SIZE));
  const [page, setPage] = useState(1);
  // a new search starts at its first page; a shorter list keeps the page in range
  // biome-ignore lint/correctness/useExhaustiveDependencies: the search text is the reason to go back to page 1
  useEffect(() => setPage(1), [search]);
  const current = Math.min(page, pages);
  const shown = found.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
  if (models.length === 0) {
    return (
      <EmptyState title="No models yet">
        Create one with the form below; generations whose model matches its pattern get priced by it.
      </EmptyState>
    );
  }
  if (found.length === 0) {
    return (
      <EmptyState title={`No model matches “${search.trim()}”`}>
        Search by the model name you send, a definition's name or its match pattern, or clear the search box.
      </EmptyState>
    );
  }
  const pager =
    pages > 1 ? (
      <nav className="pager" aria-label="Model pages">
        <button type="button" className="secondary" disabled={current === 1} onClick={() => setPage(current - 1)}>
          Previous
        </button>
        <span role="status">
          Page {current} of {pages}
        </span>
        <button type="button" className="secondary" disabled={current === pages} onClick={() => setPage(current + 1)}>
          Next
        </button>
      </nav>
    ) : null;
  return (
    <div className="table-wrap">
      {pager}
      <table aria-label="Models" className="models-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Match pattern</th>
            <th scope="col">Prices (USD per unit)</th>
            <th scope="col">Pricing tiers</th>
            <th scope="col">Tokenizer</th>
            <th scope="col">Managed</th>
            <th scope="col">Start date</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map(({ model: m, byPattern }) => (
            <ModelRow key={m.id} model={m} byPattern={byPattern} onDeleted={onDeleted} onExplain={onExplain} />
          ))}
        </tbody>
      </table>
      {pager}
    </div>
  );
}

function ModelRow({
  model,
  byPattern,
  onDeleted,
  onExplain,
}: {
  model: Model;
  byPattern: boolean;
  onDeleted: (m: Model) => void;
  onExplain: (name: string) => void;
}) {
  const prices = Object.entries(model.prices ?? {});
  return (
    <tr>
      <th scope="row">
        {model.modelName}
        {byPattern ? (
          <span className="badge match" title="Its match pattern matches the searched model name">
            {' '}
            matches
          </span>
        ) : null}
      </th>
      <td>
        <code className="pattern">{model.matchPattern}</code>
      </td>
      <td>
        <div className="muted small">per {model.unit === 'TOKENS' ? 'token' : (model.unit ?? 'unit (no unit set)')}</div>
        {prices.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="plain">
            {prices.map(([type, p]) => (
              <li key={type}>
                {type}: {formatPrice(p.price)}
                {model.unit === 'TOKENS' && p.price > 0 ? <span className="muted small"> ({perMillion(p.price)})</span> : null}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        <ul className="plain tiers">
          {model.pricingTiers.map((t) => (
            <li key={t.id}>
              <strong>{t.name}</strong>{' '}
              <span className="muted">
                (priority {t.priority}
                {t.isDefault ? ', default' : ''})
              </span>
              <div className="small">{conditionsSummary(t)}</div>
              <div className="small">{pricesText(t.prices)}</div>
            </li>
          ))}
        </ul>
      </td>
      <td>
        {model.tokenizerId ?? <span className="muted">none</span>}
        {model.tokenizerConfig != null ? <code className="small block">{JSON.stringify(model.tokenizerConfig)}</code> : null}
      </td>
      <td>{model.isLangfuseManaged ? <span className="badge managed">Managed</span> : <span className="badge">Project</span>}</td>
      <td>{formatDate(model.startDate)}</td>
      <td className="actions">
        <button
          type="button"
          className="link"
          onClick={() => onExplain(model.modelName)}
          aria-label={`Explain a cost with ${model.modelName}`}
        >
          Explain
        </button>
        {model.isLangfuseManaged ? (
          <span
            className="muted small"
            title="Managed models are shared by every project; override one by creating a project model with the same name."
          >
            read-only
          </span>
        ) : (
          <DeleteButton model={model} onDeleted={onDeleted} />
        )}
      </td>
    </tr>
  );
}

/** "Delete" becomes "Confirm delete" on the same button, so focus stays put and Enter twice works. */
function DeleteButton({ model, onDeleted }: { model: Model; onDeleted: (m: Model) => void }) {
  const tally = useTally();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ProblemText>();

  async function remove() {
    setBusy(true);
    setProblem(undefined);
    try {
      await tally.models.delete({ path: { id: model.id } });
      onDeleted(model);
    } catch (e) {
      setProblem(describeError(e));
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  }

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape from either button inside cancels the confirmation
    <div
      className="delete"
      onKeyDown={(e) => {
        if (e.key === 'Escape') setConfirming(false);
      }}
    >
      <button
        type="button"
        className="danger"
        aria-disabled={busy || undefined}
        aria-label={`${confirming ? 'Confirm delete' : 'Delete'} ${model.modelName}`}
        onClick={() => (busy ? undefined : confirming ? void remove() : setConfirming(true))}
      >
        {busy ? 'Deleting…' : confirming ? 'Confirm delete' : 'Delete'}
      </button>
      {confirming && !busy ? (
        <button type="button" className="secondary" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      ) : null}
      <ErrorBanner problem={problem} title="Not deleted" />
    </div>
  );
}
