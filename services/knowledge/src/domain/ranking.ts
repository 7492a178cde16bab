/** Reciprocal rank fusion constant (the usual 60). */
export const RRF_K = 60;

/**
 * Fuses ranked id lists with reciprocal rank fusion and normalises the score to 0..1: 1 is first
 * in every list that was run, so scores of different queries and modes can be compared.
 */
export function fuse(lists: string[][]): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, rank) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1));
    });
  }
  const max = lists.length / (RRF_K + 1);
  return [...scores.entries()]
    .map(([id, s]) => ({ id, score: Math.round((s / max) * 10_000) / 10_000 }))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

/**
 * The fused list with the ids in `first` ahead of the others, each part keeping its order; a score
 * of the second part is capped at the lowest of the first, so scores still fall down the list.
 */
export function below(fused: Array<{ id: string; score: number }>, first: Set<string>) {
  const ahead = fused.filter((f) => first.has(f.id));
  const floor = ahead.length ? ahead[ahead.length - 1].score : 1;
  const behind = fused.filter((f) => !first.has(f.id)).map((f) => ({ id: f.id, score: Math.min(f.score, floor) }));
  return [...ahead, ...behind];
}

/** Token estimate used for recall budgets: one token per 4 characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A snippet of `body` around the first word of `query` it contains (its first 4 letters), at most ~240 chars. */
export function snippetOf(body: string, query: string, width = 240): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  let at = -1;
  for (const w of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const stem = w.length > 5 ? w.slice(0, Math.max(4, w.length - 3)) : w;
    const i = lower.indexOf(stem);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const start = Math.max(0, at < 0 ? 0 : at - 60);
  const piece = flat.slice(start, start + width);
  return `${start > 0 ? '…' : ''}${piece}${start + width < flat.length ? '…' : ''}`;
}
