import { kazakhStems } from './kazakh-stemmer.ts';

/**
 * What the service computes for a note's full-text index, and for a query, before PostgreSQL adds
 * the Russian and English stems (the `russian` configuration: Snowball Russian for Cyrillic words,
 * Snowball English for Latin ones) and the hunspell-kk lemmas. PostgreSQL cannot run this code, so
 * the Kazakh stems travel as text, indexed with the `simple` configuration.
 */

const WORD = /[\p{L}\p{N}]+/gu;

/** Words of a text as search sees them: lower case, ё as е (Russian writers use both). */
export function words(text: string): string[] {
  return (text.toLowerCase().replace(/ё/g, 'е').match(WORD) ?? []).filter((w) => w.length <= 64);
}

/** The Kazakh stems of every word of a text, space-separated (to_tsvector('simple', …) input), at most `max` characters. */
export function kazakhStemText(text: string, max = Number.POSITIVE_INFINITY): string {
  const out: string[] = [];
  let length = 0;
  for (const w of words(text)) {
    for (const s of kazakhStems(w)) {
      length += s.length + 1;
      if (length > max) return out.join(' ');
      out.push(s);
    }
  }
  return out.join(' ');
}

/**
 * Kazakh function words a query drops (Russian and English ones are the `russian`
 * configuration's stop words): conjunctions, postpositions, pronouns, particles.
 */
const KAZAKH_STOP = new Set(
  (
    'және мен бен пен да де та те ма ме ба бе па пе не ал бірақ немесе әлде яки өйткені себебі егер ' +
    'үшін туралы бойынша арқылы сияқты секілді дейін кейін бері соң шейін қарай бірге ' +
    'бұл осы сол ол мына ана анау мынау олар біз сіз сен мен біздің сіздің оның олардың ' +
    'әр барлық бәрі кейбір қандай қалай неге қашан қайда кім не ше ғой қой ғана тек әлі енді'
  ).split(' '),
);

/** A word of a query with the Kazakh stems it may have. */
export interface QueryWord {
  word: string;
  stems: string[];
}

/** The words of a query (at most `max`, first come), Kazakh stop words left out. */
export function queryWords(query: string, max = 12): QueryWord[] {
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const w of words(query)) {
    if (KAZAKH_STOP.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push({ word: w, stems: kazakhStems(w) });
    if (out.length === max) break;
  }
  return out;
}
