// Rules the schemas cannot say (the server checks them after the schema): applied to generated
// values so that most clean ones are accepted and reach storage, pricing and reading back.

/** promptName and promptVersion come together */
export function shapeEvent(e: any): unknown {
  const b = e?.body;
  if (b && typeof b === 'object' && !Array.isArray(b) && (b.promptName == null) !== (b.promptVersion == null)) {
    if (b.promptName == null) delete b.promptVersion;
    else b.promptVersion = 1;
  }
  return e;
}

const USAGE_TYPE = /^[A-Za-z0-9_-]+$/;
/** flat prices or pricing tiers, not both; tiers: one default first (priority 0, no conditions), the others with conditions and the default's price keys */
export function shapeModel([m, flat]: [any, boolean]): unknown {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return m;
  if (flat) {
    delete m.pricingTiers;
    if (m.inputPrice == null && m.outputPrice == null && m.totalPrice == null) m.inputPrice = 1;
    if ((m.inputPrice || m.outputPrice) && typeof m.totalPrice === 'number') m.totalPrice = null;
    return m;
  }
  delete m.inputPrice;
  delete m.outputPrice;
  delete m.totalPrice;
  const tiers: any[] =
    Array.isArray(m.pricingTiers) && m.pricingTiers.length > 0
      ? m.pricingTiers
      : [{ name: 'default', priority: 0, conditions: [], prices: {} }];
  const first = tiers[0] && typeof tiers[0] === 'object' ? tiers[0] : {};
  const keys = Object.keys(first.prices && typeof first.prices === 'object' ? first.prices : {}).filter((k) => USAGE_TYPE.test(k));
  const priceKeys = keys.length > 0 ? keys : ['input', 'output'];
  m.pricingTiers = tiers.map((t: any, i: number) => {
    const tier = t && typeof t === 'object' && !Array.isArray(t) ? t : {};
    const given = tier.prices && typeof tier.prices === 'object' ? tier.prices : {};
    return {
      ...tier,
      name: i === 0 ? (tier.name ?? 'default') : `${i}-${typeof tier.name === 'string' ? tier.name : 'tier'}`,
      isDefault: i === 0,
      priority: i,
      conditions:
        i === 0
          ? []
          : Array.isArray(tier.conditions) && tier.conditions.length > 0
            ? tier.conditions
            : [{ usageDetailPattern: 'input', operator: 'gt', value: 1000 }],
      prices: Object.fromEntries(priceKeys.map((k) => [k, k in given ? given[k] : 1])),
    };
  });
  return m;
}
