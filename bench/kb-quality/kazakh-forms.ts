// Forward Kazakh noun inflection for the judged corpus: the forms a teacher writes, built by the
// textbook rules of suffix choice (vowel harmony, the stem's last sound, consonant alternation
// п→б, к→г, қ→ғ before a vowel). Independent of the service's stemmer, which only strips: this
// side chooses the one correct allomorph (кітап+тар, сан+дар, бала+лар), the stemmer accepts any.

const BACK = /[аоұы]/;
const FRONT = /[әеөүі]/;

/** A noun: its stem and, where the last vowel does not tell (loanwords), its harmony. */
export interface KazakhNoun {
  stem: string;
  front?: boolean;
  /** Irregular forms (a vowel that drops: халық → халқы) by form name. */
  forms?: Partial<Record<KazakhForm, string>>;
}

export const KAZAKH_FORMS = [
  'nom',
  'pl',
  'gen',
  'acc',
  'dat',
  'loc',
  'abl',
  'ins',
  'poss3',
  'poss3acc',
  'poss3gen',
  'poss3loc',
  'plgen',
  'placc',
  'pldat',
  'plloc',
  'plposs3',
  'plposs3gen',
  'plposs3acc',
  'locattr',
  'pl1pl',
  'pl1placc',
] as const;
export type KazakhForm = (typeof KAZAKH_FORMS)[number];

function isFront(n: KazakhNoun, word = n.stem): boolean {
  if (n.front !== undefined && word === n.stem) return n.front;
  for (let i = word.length - 1; i >= 0; i--) {
    if (FRONT.test(word[i])) return true;
    if (BACK.test(word[i])) return false;
  }
  return n.front ?? false;
}

type Sound = 'vowel' | 'sonorant' | 'nasal' | 'voiced' | 'voiceless';

function soundOf(word: string): Sound {
  const c = word[word.length - 1];
  if (/[аәеоөұүыіиэяю]/.test(c)) return 'vowel';
  if (/[руйл]/.test(c)) return 'sonorant';
  if (/[мнң]/.test(c)) return 'nasal';
  if (/[жз]/.test(c)) return 'voiced';
  return 'voiceless';
}

function h(front: boolean, back: string, fr: string) {
  return front ? fr : back;
}

/** The stem before a suffix that begins with a vowel (п→б, к→г, қ→ғ). */
function softened(stem: string): string {
  const alt: Record<string, string> = { п: 'б', к: 'г', қ: 'ғ' };
  const last = stem[stem.length - 1];
  return alt[last] ? stem.slice(0, -1) + alt[last] : stem;
}

function plural(w: string, f: boolean) {
  const s = soundOf(w);
  const c = s === 'vowel' || (s === 'sonorant' && !w.endsWith('л')) ? 'л' : s === 'voiceless' ? 'т' : 'д';
  return `${w}${c}${h(f, 'ар', 'ер')}`;
}

function caseOf(w: string, f: boolean, c: 'gen' | 'acc' | 'dat' | 'loc' | 'abl' | 'ins'): string {
  const s = soundOf(w);
  switch (c) {
    case 'gen':
      return w + (s === 'vowel' || s === 'nasal' ? 'н' : s === 'voiceless' ? 'т' : 'д') + h(f, 'ың', 'ің');
    case 'acc':
      return w + (s === 'vowel' ? 'н' : s === 'voiceless' ? 'т' : 'д') + h(f, 'ы', 'і');
    case 'dat':
      return w + (s === 'voiceless' ? h(f, 'қа', 'ке') : h(f, 'ға', 'ге'));
    case 'loc':
      return w + (s === 'voiceless' ? 'т' : 'д') + h(f, 'а', 'е');
    case 'abl':
      return w + (s === 'nasal' ? 'н' : s === 'voiceless' ? 'т' : 'д') + h(f, 'ан', 'ен');
    case 'ins':
      return w + (s === 'voiced' ? 'бен' : s === 'voiceless' ? 'пен' : 'мен');
  }
}

function poss3(w: string, f: boolean) {
  return soundOf(w) === 'vowel' ? `${w}${h(f, 'сы', 'сі')}` : `${softened(w)}${h(f, 'ы', 'і')}`;
}

/** A form of the noun. After the 3rd-person possessive the cases take n-forms (-ның, -н, -нда). */
export function kazakhForm(n: KazakhNoun, form: KazakhForm): string {
  const given = n.forms?.[form];
  if (given) return given;
  const f = isFront(n);
  const st = n.stem;
  const p3 = n.forms?.poss3 ?? poss3(st, f);
  const pl = plural(st, f);
  const plp3 = `${pl}${h(f, 'ы', 'і')}`;
  const pl1 = `${pl}${h(f, 'ымыз', 'іміз')}`;
  switch (form) {
    case 'nom':
      return st;
    case 'pl':
      return pl;
    case 'gen':
    case 'acc':
    case 'dat':
    case 'loc':
    case 'abl':
    case 'ins':
      return caseOf(st, f, form);
    case 'poss3':
      return p3;
    case 'poss3acc':
      return `${p3}н`;
    case 'poss3gen':
      return `${p3}${h(f, 'ның', 'нің')}`;
    case 'poss3loc':
      return `${p3}${h(f, 'нда', 'нде')}`;
    case 'plgen':
      return caseOf(pl, f, 'gen');
    case 'placc':
      return caseOf(pl, f, 'acc');
    case 'pldat':
      return caseOf(pl, f, 'dat');
    case 'plloc':
      return caseOf(pl, f, 'loc');
    case 'plposs3':
      return plp3;
    case 'plposs3gen':
      return `${plp3}${h(f, 'ның', 'нің')}`;
    case 'plposs3acc':
      return `${plp3}н`;
    case 'locattr':
      return `${caseOf(st, f, 'loc')}${h(f, 'ғы', 'гі')}`;
    case 'pl1pl':
      return pl1;
    case 'pl1placc':
      return `${pl1}${h(f, 'ды', 'ді')}`;
  }
}
