import { queryWords } from './domain/index-text.ts';
import { kazakhStems } from './domain/kazakh-stemmer.ts';
import { closest, type ParsedQuery, TYPO_NEIGHBOURS, typoNeighbours } from './domain/query.ts';
import type { Scope, SearchRepository } from './repositories/search.repository.ts';

/** Lexemes shorter than this are not corrected (too many lie a typo away). */
const MIN_TYPO_LEXEME = 3;
/** At most this many lexemes of a query are looked up for typos (each is one k-NN probe). */
const MAX_TYPO_LEXEMES = 24;

/**
 * Parses a query as notes are indexed (see the service README, "How a query is parsed"): each word
 * becomes the set of its lexemes (Russian/English stem, hunspell-kk lemmas, Kazakh stems); stop
 * words are left out.
 */
export async function parseQuery(
  repo: SearchRepository,
  query: string,
  hunspell: string | null,
  scope: Scope,
): Promise<ParsedQuery> {
  const words = queryWords(query);
  const lexemes = await repo.lexemes(
    words.map((w) => w.word),
    words.map((w) => w.stems),
    hunspell,
    scope,
  );
  const terms = words
    .map((w, i) => {
      const lx = lexemes[i];
      return {
        word: w.word,
        known: lx.known,
        stop: !lx.russian.length,
        alts: [...new Set([...lx.russian, ...lx.hunspell, ...w.stems])],
      };
    })
    .filter((w) => !w.stop)
    .map(({ stop: _, ...t }) => t);
  return { terms, exact: terms.map((t) => t.alts) };
}

/**
 * The query with typos corrected: a word no note contains as written also gets the vocabulary's
 * lexemes a typo or two away from its own, with their lexemes in turn. Null when no word needed or
 * found a correction. Matches of these rank below exact ones.
 */
export async function corrections(
  repo: SearchRepository,
  query: ParsedQuery,
  hunspell: string | null,
  scope: Scope,
): Promise<string[][] | null> {
  const kept = query.terms;
  const correctable = (l: string) => [...l].length >= MIN_TYPO_LEXEME && /^\p{L}+$/u.test(l);
  const unknown = [...new Set(kept.filter((w) => !w.known).flatMap((w) => w.alts.filter(correctable)))].slice(
    0,
    MAX_TYPO_LEXEMES,
  );
  if (!unknown.length) return null;
  const nearest = await repo.nearestWords(unknown, scope);
  // Only the neighbours a typo away are checked against the live notes (the vocabulary keeps
  // lexemes of edited and deleted notes); the choice is then made among the live ones, as if the
  // vocabulary held nothing else.
  const typoAway = new Map([...nearest].map(([l, c]) => [l, typoNeighbours(l, c, Number.POSITIVE_INFINITY)]));
  const live = await repo.liveLexemes([...new Set([...typoAway.values()].flat().map((n) => n.word))], scope);
  const liveNear = (l: string) => (typoAway.get(l) ?? []).filter((n) => live.has(n.word)).slice(0, TYPO_NEIGHBOURS);
  const near = new Map(kept.map((w) => [w.word, w.known ? [] : closest(w.alts.flatMap(liveNear))]));
  // A neighbour is a lexeme of the corpus, often a whole word form (a typo inside a suffix keeps
  // the stemmer from reaching the stem): its own lexemes join it, so other forms match too.
  const found = [...new Set([...near.values()].flat())];
  if (!found.length) return null;
  const stems = found.map((l) => kazakhStems(l));
  const lx = await repo.lexemes(found, stems, hunspell, scope);
  const of = new Map(found.map((l, i) => [l, [l, ...lx[i].russian, ...lx[i].hunspell, ...stems[i]]]));
  return kept.map((w) => [...new Set([...w.alts, ...(near.get(w.word) ?? []).flatMap((l) => of.get(l) ?? [])])]);
}
