// The usage types and pricing tiers of a new model. Every control's name says which tier (and
// condition) it belongs to, e.g. "Tier 2 condition 1 threshold", so it can be found by label.
import { Field } from '../../components/Field.tsx';
import type { PricingTierOperator } from '../../../../sdk/index.ts';
import { newCondition, newKey, newTier, OPERATORS, type ConditionDraft, type ModelDraft, type TierDraft } from './draft.ts';

type Update = (change: (d: ModelDraft) => ModelDraft) => void;
type ErrorOf = (path: string) => string | undefined;

function Problem({ text }: { text: string | undefined }) {
  return text ? <div className="field-error">{text}</div> : null;
}

export function TierEditor({ draft, update, errorOf }: { draft: ModelDraft; update: Update; errorOf: ErrorOf }) {
  const setTier = (key: number, change: (t: TierDraft) => TierDraft) =>
    update((d) => ({ ...d, tiers: d.tiers.map((t) => (t.key === key ? change(t) : t)) }));

  function addTier() {
    update((d) => {
      const top = Math.max(0, ...d.tiers.map((t) => Number(t.priority) || 0));
      return { ...d, tiers: [...d.tiers, newTier(top + 1)] };
    });
  }
  function removeTier(key: number) {
    update((d) => {
      const tiers = d.tiers.filter((t) => t.key !== key);
      // the default is a radio group: removing the default tier hands the role to the first one left
      return { ...d, tiers, defaultTier: d.defaultTier === key ? tiers[0]!.key : d.defaultTier };
    });
  }

  return (
    <div className="tier-editor">
      <fieldset className="usage-types">
        <legend>Usage types</legend>
        <p className="hint">
          Every tier prices the same usage keys (as in the generation's <code>usageDetails</code>).
        </p>
        {draft.usageTypes.map((u, j) => (
          <div className="row" key={u.key}>
            <Field label={`Usage type ${j + 1}`} error={errorOf(`usageTypes.${j}`)}>
              {(ids) => (
                <input
                  {...ids}
                  value={u.name}
                  onChange={(e) =>
                    update((d) => ({
                      ...d,
                      usageTypes: d.usageTypes.map((o) => (o.key === u.key ? { ...o, name: e.target.value } : o)),
                    }))
                  }
                />
              )}
            </Field>
            <button
              type="button"
              className="secondary"
              disabled={draft.usageTypes.length === 1}
              onClick={() => update((d) => ({ ...d, usageTypes: d.usageTypes.filter((o) => o.key !== u.key) }))}
            >
              Remove usage type {j + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          className="secondary"
          onClick={() => update((d) => ({ ...d, usageTypes: [...d.usageTypes, { key: newKey(), name: '' }] }))}
        >
          Add usage type
        </button>
      </fieldset>

      <p className="hint">
        Exactly one tier is the default: priority 0, no conditions, used when no other tier matches. The other tiers are tried by ascending
        priority (unique, 1–999); the first whose conditions all hold sets the prices.
      </p>
      <Problem text={errorOf('pricingTiers')} />
      {draft.tiers.map((tier, i) => (
        <TierFields
          key={tier.key}
          tier={tier}
          index={i}
          draft={draft}
          errorOf={errorOf}
          setTier={(change) => setTier(tier.key, change)}
          makeDefault={() => update((d) => ({ ...d, defaultTier: tier.key }))}
          remove={draft.tiers.length > 1 ? () => removeTier(tier.key) : undefined}
        />
      ))}
      <button type="button" className="secondary" onClick={addTier}>
        Add tier
      </button>
    </div>
  );
}

function TierFields({
  tier,
  index,
  draft,
  errorOf,
  setTier,
  makeDefault,
  remove,
}: {
  tier: TierDraft;
  index: number;
  draft: ModelDraft;
  errorOf: ErrorOf;
  setTier: (change: (t: TierDraft) => TierDraft) => void;
  makeDefault: () => void;
  remove?: () => void;
}) {
  const n = index + 1;
  const p = `pricingTiers.${index}`;
  const isDefault = draft.defaultTier === tier.key;
  const setCondition = (key: number, change: Partial<ConditionDraft>) =>
    setTier((t) => ({ ...t, conditions: t.conditions.map((c) => (c.key === key ? { ...c, ...change } : c)) }));

  return (
    <fieldset className="tier">
      <legend>
        Tier {n}
        {isDefault ? ' (default)' : ''}
      </legend>
      <Problem text={errorOf(p)} />
      <div className="row">
        <Field label={`Tier ${n} name`} error={errorOf(`${p}.name`)}>
          {(ids) => <input {...ids} value={tier.name} onChange={(e) => setTier((t) => ({ ...t, name: e.target.value }))} />}
        </Field>
        <Field label={`Tier ${n} priority`} error={errorOf(`${p}.priority`)}>
          {(ids) => (
            <input
              {...ids}
              inputMode="numeric"
              value={tier.priority}
              onChange={(e) => setTier((t) => ({ ...t, priority: e.target.value }))}
            />
          )}
        </Field>
      </div>
      <label className="check">
        <input type="radio" name="default-tier" checked={isDefault} onChange={makeDefault} /> Tier {n} is the default
      </label>
      <Problem text={errorOf(`${p}.isDefault`)} />

      <div className="row">
        {draft.usageTypes.map((u, j) => {
          const type = u.name.trim();
          return (
            <Field
              key={u.key}
              label={`Tier ${n} ${type || `usage type ${j + 1}`} price`}
              hint="USD per unit"
              error={type ? errorOf(`${p}.prices.${type}`) : undefined}
            >
              {(ids) => (
                <input
                  {...ids}
                  inputMode="decimal"
                  placeholder="0.000001"
                  value={tier.prices[u.key] ?? ''}
                  onChange={(e) => setTier((t) => ({ ...t, prices: { ...t.prices, [u.key]: e.target.value } }))}
                />
              )}
            </Field>
          );
        })}
      </div>
      <Problem text={errorOf(`${p}.prices`)} />

      <div className="conditions">
        <strong className="small">Conditions (all must hold)</strong>
        {tier.conditions.length === 0 ? (
          <p className="hint">
            {isDefault ? 'None: the default tier has no conditions.' : 'None yet: a non-default tier needs at least one.'}
          </p>
        ) : null}
        {tier.conditions.map((c, j) => {
          const cn = `Tier ${n} condition ${j + 1}`;
          const cp = `${p}.conditions.${j}`;
          return (
            <div className="condition" key={c.key}>
              <div className="row">
                <Field label={`${cn} usage pattern`} hint="regex over usage keys, e.g. input" error={errorOf(`${cp}.usageDetailPattern`)}>
                  {(ids) => <input {...ids} value={c.pattern} onChange={(e) => setCondition(c.key, { pattern: e.target.value })} />}
                </Field>
                <Field label={`${cn} operator`} error={errorOf(`${cp}.operator`)}>
                  {(ids) => (
                    <select
                      {...ids}
                      value={c.operator}
                      onChange={(e) => setCondition(c.key, { operator: e.target.value as PricingTierOperator })}
                    >
                      {OPERATORS.map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.text}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
                <Field label={`${cn} threshold`} hint="summed units" error={errorOf(`${cp}.value`)}>
                  {(ids) => (
                    <input {...ids} inputMode="decimal" value={c.value} onChange={(e) => setCondition(c.key, { value: e.target.value })} />
                  )}
                </Field>
              </div>
              <div className="row">
                <label className="check">
                  <input
                    type="checkbox"
                    checked={c.caseSensitive}
                    onChange={(e) => setCondition(c.key, { caseSensitive: e.target.checked })}
                  />{' '}
                  {cn} case-sensitive
                </label>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => setTier((t) => ({ ...t, conditions: t.conditions.filter((o) => o.key !== c.key) }))}
                >
                  Remove {cn.toLowerCase()}
                </button>
              </div>
              <Problem text={errorOf(`${cp}.caseSensitive`)} />
              <Problem text={errorOf(cp)} />
            </div>
          );
        })}
        <Problem text={errorOf(`${p}.conditions`)} />
        <button
          type="button"
          className="secondary"
          onClick={() => setTier((t) => ({ ...t, conditions: [...t.conditions, newCondition()] }))}
        >
          Add condition to tier {n}
        </button>
      </div>
      {remove ? (
        <button type="button" className="danger" onClick={remove}>
          Remove tier {n}
        </button>
      ) : null}
    </fieldset>
  );
}
