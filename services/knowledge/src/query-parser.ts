import { kazakhStems } from './domain/kazakh-stemmer.ts';
import { queryWords } from './domain/index-text.ts';
import { type ParsedQuery, typoNeighbours } from './domain/query.ts';
import type { SearchRepository, WordLexemes } from './repositories/search.repository.ts';

/** Words shorter than this are not corrected (too many words lie a typo away). */
const MIN_TYPO_WORD = 4;

function alternatives(word: string, kazakh: string[], lx: WordLexemes): string[] {
  return [...new Set([...lx.russian, ...lx.hunspell, ...kazakh, word])];
}

/**
 * Parses a query as notes are indexed (see the service README, "How a query is parsed"): each word
 * becomes the set of its lexemes (Russian/English stem, hunspell-kk lemmas, Kazakh stems); stop
 * words are left out. A word the vocabulary does not contain is also given the lexemes of the
 * vocabulary's words a typo or two away (the `fuzzy` alternatives, ranked below exact matches).
 */
export async function parseQuery(repo: SearchRepository, query: string, hunspell: string | null): Promise<ParsedQuery> {
  const words = queryWords(query);
  const lexemes = await repo.lexemes(
    words.map((w) => w.word),
    hunspell,
  );
  const kept = words
    .map((w, i) => ({ ...w, lx: lexemes[i] }))
    .filter((w) => w.lx.russian.length > 0);
  const exact = kept.map((w) => alternatives(w.word, w.stems, w.lx));
  const unknown = kept.filter((w) => !w.lx.known && [...w.word].length >= MIN_TYPO_WORD && /^\p{L}+$/u.test(w.word));
  if (!unknown.length) return { exact, fuzzy: null };
  const nearest = await repo.nearestWords(unknown.map((w) => w.word));
  const corrections = new Map(unknown.map((w) => [w.word, typoNeighbours(w.word, nearest.get(w.word) ?? [])]));
  const all = [...new Set([...corrections.values()].flat())];
  if (!all.length) return { exact, fuzzy: null };
  const lx = new Map((await repo.lexemes(all, hunspell)).map((l, i) => [all[i], l]));
  const fuzzy = kept.map((w, i) => [
    ...exact[i],
    ...(corrections.get(w.word) ?? []).flatMap((c) => alternatives(c, kazakhStems(c), lx.get(c) as WordLexemes)),
  ]);
  return { exact, fuzzy };
}
