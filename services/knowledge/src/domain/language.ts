/**
 * Language of a text for full-text search: 'kk' when Kazakh-specific letters (ә ғ қ ң ө ұ ү һ і)
 * occur in at least 2 words or in 1 word in 30, 'ru' when the letters are mostly Cyrillic,
 * otherwise 'simple'. A heuristic, not a model: Russian never uses these letters and almost every
 * Kazakh sentence has several, which is all the ru/kk choice needs (see the service README).
 */
export type Lang = 'ru' | 'kk' | 'simple';

const KAZAKH = /[әғқңөұүһіӘҒҚҢӨҰҮҺІ]/;
const WORD = /[\p{L}]+/gu;
const CYRILLIC = /[\u0400-\u04FF]/;

export function detectLanguage(text: string): Lang {
  const words = text.match(WORD) ?? [];
  if (!words.length) return 'simple';
  let kazakh = 0;
  let cyrillic = 0;
  for (const w of words) {
    if (KAZAKH.test(w)) kazakh++;
    if (CYRILLIC.test(w)) cyrillic++;
  }
  if (kazakh >= 2 || (kazakh >= 1 && kazakh * 30 >= words.length)) return 'kk';
  return cyrillic * 2 >= words.length ? 'ru' : 'simple';
}
