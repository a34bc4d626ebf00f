// Maps keyed by names a client chose (usage and cost keys), built in loops on the ingestion hot
// path. JSON.parse makes a `__proto__` key an ordinary own entry; a bare `obj[k] = v` would
// instead try to replace the prototype and lose the entry, so every write goes through here.

/** obj[k] = v, with a `__proto__` key kept as plain data */
export function setEntry<V>(obj: Record<string, V>, k: string, v: V): void {
  if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[k] = v;
}

/** whether the map has any entry */
export function hasEntries(o: object): boolean {
  for (const _ in o) return true;
  return false;
}
