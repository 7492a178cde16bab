/** A word of a parsed query: the lexemes any of which matches it, and whether some note has it as written. */
export interface QueryTerm {
  word: string;
  known: boolean;
  alts: string[];
}

/**
 * A parsed query: for each word (stop words left out) the lexemes any of which matches it (its
 * Russian/English stem, its hunspell-kk lemmas, its Kazakh stems); `exact` is their lists.
 */
export interface ParsedQuery {
  terms: QueryTerm[];
  exact: string[][];
}

function quote(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * The tsquery text of word alternatives: the lexemes of one word OR-ed, the words AND-ed (`all`)
 * or OR-ed (`any`). Null when no word is left (only stop words).
 */
export function tsQueryText(words: string[][], mode: 'all' | 'any'): string | null {
  const parts = words.filter((alts) => alts.length).map((alts) => `(${[...new Set(alts)].map(quote).join(' | ')})`);
  return parts.length ? parts.join(mode === 'all' ? ' & ' : ' | ') : null;
}

/** Edit distance with adjacent transpositions (optimal string alignment), in letters. */
export function typoDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const d = Array.from({ length: x.length + 1 }, (_, i) => [i, ...Array(y.length).fill(0)]);
  for (let j = 1; j <= y.length; j++) d[0][j] = j;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[x.length][y.length];
}

/** How many typos a word of this length may carry and still be corrected (1 up to 5 letters, 2 up to 9, then 3). */
export function maxTypos(length: number): number {
  return length <= 5 ? 1 : length <= 9 ? 2 : 3;
}

/** How many of a word's typo neighbours a correction considers, closest first. */
export const TYPO_NEIGHBOURS = 3;

/**
 * Of the candidates (nearest first), those a typo away from `word`, with their distance: at most
 * `max`, closest first.
 */
export function typoNeighbours(
  word: string,
  candidates: string[],
  max = TYPO_NEIGHBOURS,
): Array<{ word: string; distance: number }> {
  const limit = maxTypos([...word].length);
  return candidates
    .filter((c) => c !== word)
    .map((c, i) => ({ word: c, i, distance: typoDistance(word, c) }))
    .filter((x) => x.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.i - b.i)
    .slice(0, max)
    .map(({ word: w, distance }) => ({ word: w, distance }));
}

/** The corrections of a word: of its lexemes' neighbours, the closest ones only (a wider net catches other words). */
export function closest(neighbours: Array<{ word: string; distance: number }>): string[] {
  const min = Math.min(...neighbours.map((n) => n.distance));
  return [...new Set(neighbours.filter((n) => n.distance === min).map((n) => n.word))];
}
