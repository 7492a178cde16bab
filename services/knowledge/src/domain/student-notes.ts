/** A student note as the tools show it: key, text and the two dates. */
export function noteView(n: { key: string; text: string; created_at: string; updated_at: string }) {
  return { key: n.key, text: n.text, created_at: n.created_at, updated_at: n.updated_at };
}

/** Notes whose key is in `keys` first, in the order of `keys`; then the rest in their given order. */
export function orderByKeys<T extends { key: string }>(notes: T[], keys: readonly string[]): T[] {
  const pos = new Map(keys.map((k, i) => [k, i]));
  const named = notes.filter((n) => pos.has(n.key)).sort((a, b) => (pos.get(a.key) ?? 0) - (pos.get(b.key) ?? 0));
  return [...named, ...notes.filter((n) => !pos.has(n.key))];
}
