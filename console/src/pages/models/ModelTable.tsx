// Managed and project models in one table, filtered by the search box. Project models can be
// deleted after a second, explicit press; managed ones are read-only on the server.
import { useState } from 'react';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import type { Model } from '../../../../sdk/index.ts';
import { formatPrice, perMillion } from '../../format.ts';
import { conditionsSummary, formatDate, pricesText } from './format.ts';

export function matches(model: Model, search: string): boolean {
  const q = search.trim().toLowerCase();
  return !q || model.modelName.toLowerCase().includes(q) || model.matchPattern.toLowerCase().includes(q);
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
  const shown = models.filter((m) => matches(m, search));
  if (models.length === 0) {
    return (
      <EmptyState title="No models yet">
        Create one with the form below; generations whose model matches its pattern get priced by it.
      </EmptyState>
    );
  }
  if (shown.length === 0) {
    return (
      <EmptyState title={`No model matches “${search.trim()}”`}>Search by model name or match pattern, or clear the search box.</EmptyState>
    );
  }
  return (
    <div className="table-wrap">
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
          {shown.map((m) => (
            <ModelRow key={m.id} model={m} onDeleted={onDeleted} onExplain={onExplain} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ModelRow({ model, onDeleted, onExplain }: { model: Model; onDeleted: (m: Model) => void; onExplain: (name: string) => void }) {
  const prices = Object.entries(model.prices ?? {});
  return (
    <tr>
      <th scope="row">{model.modelName}</th>
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
