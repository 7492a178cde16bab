/**
 * A Kazakh stemmer for search: the stems a word form may have once the nominal suffix chain
 * (plural → possessive → case, then the attributive -ғы/-гі) is taken off its end.
 *
 * Rules (see the service README, "Kazakh stems", for the grammar references):
 * - Suffixes are stripped from the end in the reverse of their order, each slot at most once:
 *   case (or -дағы/-дегі, -дай/-дей, -ша/-ше), possessive, plural.
 * - Vowel harmony: a suffix with a back vowel (а ы о ұ) follows a stem whose last vowel is back,
 *   one with a front vowel (ә е і ө ү) a front stem; и у ю я ё э (mostly in loanwords) take both.
 *   The instrumental -мен/-бен/-пен has one form for both.
 * - Possessives that begin with a vowel (-ым, -ың, -ы, -ымыз, -ыңыз) follow a consonant (у, и, й
 *   count as consonants: тауы, оқуы); those without one (-м, -ң, -сы, -мыз, -ңыз) follow a vowel.
 *   The case forms that only come after a 3rd-person possessive (-н, -на, -нда, -нан, -ндағы,
 *   and -а/-е after any possessive) are stripped only when a possessive is stripped next.
 * - Every reachable stem is returned (the word itself included), not only the shortest: «тақта»
 *   (board) ends like a locative, so «тақта» gives {тақта, тақ} and «тақтада» {тақтада, тақта};
 *   a query and a note match when their sets share a stem.
 * - Stems are normalised so that the forms of one word agree: a final б/г/ғ becomes п/к/қ
 *   (кітабы → кітап), and a high vowel ы/і between the last two consonants is dropped
 *   (халық and халқы both give халқ; орын, орны → орн), as Kazakh drops it before a vowel suffix.
 * - A stem keeps at least two letters and a vowel.
 */

const BACK = new Set([...'аыоұ']);
const FRONT = new Set([...'әеіөү']);
const VOWELS = new Set([...'аыоұәеіөүиуюяёэ']);
/** Letters that close a syllable for the possessive's choice of form (тау+ы, оқу+ы, тарих+ы). */
const SEMIVOWEL = new Set([...'уий']);

type Harmony = 'back' | 'front' | 'any';

interface Suffix {
  text: string;
  harmony: Harmony;
  /** Possessives: what the stem must end with. */
  after?: 'vowel' | 'consonant';
  /** Case forms that come only after a possessive (which must then be stripped too). */
  needsPossessive?: boolean;
}

/**
 * The harmony of a stem's (or a suffix's) last vowel. у and и after a vowel are consonants (теңдеу
 * is front by its е); elsewhere they, like ю я ё э of loanwords, let either form follow (магазинде).
 */
function harmonyOf(s: string): Harmony {
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s[i];
    if (BACK.has(c)) return 'back';
    if (FRONT.has(c)) return 'front';
    if ((c === 'у' || c === 'и') && i > 0 && VOWELS.has(s[i - 1])) continue;
    if (VOWELS.has(c)) return 'any';
  }
  return 'any';
}

function suffixes(list: string, extra: Partial<Suffix> = {}): Suffix[] {
  return list.split(' ').map((text) => ({ text, harmony: harmonyOf(text), ...extra }));
}

const CASE: Suffix[] = [
  ...suffixes('дағы дегі тағы тегі'),
  ...suffixes('ның нің дың дің тың тің'),
  ...suffixes('ға ге қа ке'),
  ...suffixes('ны ні ды ді ты ті'),
  ...suffixes('да де та те'),
  ...suffixes('дан ден тан тен нан нен'),
  // The instrumental does not follow harmony (баласымен, кітаппен).
  ...suffixes('мен бен пен', { harmony: 'any' }),
  ...suffixes('дай дей тай тей ша ше'),
  ...suffixes('ғы гі қы кі'),
  ...suffixes('ндағы ндегі нда нде на не н а е', { needsPossessive: true }),
];

const POSSESSIVE: Suffix[] = [
  ...suffixes('ымыз іміз ыңыз іңіз ым ім ың ің ы і', { after: 'consonant' }),
  ...suffixes('мыз міз ңыз ңіз сы сі м ң', { after: 'vowel' }),
];

const PLURAL: Suffix[] = suffixes('лар лер дар дер тар тер');

const SLOTS = [CASE, POSSESSIVE, PLURAL];

function fits(stem: string, s: Suffix): boolean {
  if (stem.length < 2 || ![...stem].some((c) => VOWELS.has(c))) return false;
  const h = harmonyOf(stem);
  if (s.harmony !== 'any' && h !== 'any' && h !== s.harmony) return false;
  const last = stem[stem.length - 1];
  const vowelEnd = VOWELS.has(last) && !SEMIVOWEL.has(last);
  if (s.after === 'vowel' && !vowelEnd) return false;
  if (s.after === 'consonant' && vowelEnd) return false;
  return true;
}

/** Stems reachable from `word` by stripping suffixes of slot `from` and the slots inside it. */
function strip(word: string, from: number, needPossessive: boolean, out: Set<string>): void {
  if (!needPossessive) out.add(word);
  for (let slot = from; slot < SLOTS.length; slot++) {
    if (needPossessive && slot !== 1) continue;
    for (const s of SLOTS[slot]) {
      if (!word.endsWith(s.text)) continue;
      const stem = word.slice(0, -s.text.length);
      if (!fits(stem, s)) continue;
      strip(stem, slot + 1, slot === 0 && !!s.needsPossessive, out);
    }
  }
}

const VOICED_END: Record<string, string> = { б: 'п', г: 'к', ғ: 'қ' };
const DROPPED_VOWEL = /([^аыоұәеіөүиуюяёэ])[ыі]([^аыоұәеіөүиуюяёэ])$/;

/** A stem in the form every form of its word agrees on (see the rules above). */
export function normaliseStem(stem: string): string {
  let s = stem;
  const last = s[s.length - 1];
  if (VOICED_END[last]) s = s.slice(0, -1) + VOICED_END[last];
  if (s.length >= 4) s = s.replace(DROPPED_VOWEL, '$1$2');
  return s;
}

/** The stems of a lower-case word (the word itself normalised among them), shortest last. */
export function kazakhStems(word: string): string[] {
  if (word.length < 3 || !/^[\p{L}]+$/u.test(word)) return [word];
  const out = new Set<string>();
  strip(word, 0, false, out);
  return [...new Set([...out].map(normaliseStem))].sort((a, b) => b.length - a.length || a.localeCompare(b));
}
