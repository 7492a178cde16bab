// Generates the judged corpus of `npm run bench:kb-quality` (bench/kb-quality/corpus.json, checked
// in): notes of school subjects in Russian, Kazakh and both, and queries with the notes that must
// come back, in four groups. Deterministic (seeded). Run: npx tsx bench/kb-quality/generate.ts
//
// Honesty rules, checked below: a query's words never occur verbatim in the notes it must find
// (for each topic, the query forms are set aside before its notes are written, and no note of the
// topic uses them); a typo query is a misspelling that no note contains.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  KAZAKH_NAMES,
  KAZAKH_OPENINGS,
  KK_ASPECTS,
  KK_FILLER,
  KK_MIX_TOPICS,
  KK_NOISE,
  KK_SENTENCES,
  KK_TOPICS,
  type KkTopic,
} from './kazakh.ts';
import { KAZAKH_FORMS, type KazakhForm, kazakhForm } from './kazakh-forms.ts';
import {
  RU_ASPECTS,
  RU_FILLER,
  RU_FORMS,
  RU_MIX_TOPICS,
  RU_NOISE,
  RU_SENTENCES,
  RU_TOPICS,
  type RuTopic,
} from './russian.ts';

export interface CorpusNote {
  key: string;
  body: string;
}
export type Group = 'russian' | 'kazakh' | 'mixed' | 'typos';
export interface CorpusQuery {
  group: Group;
  query: string;
  relevant: string[];
}

let seed = 21;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)];
function shuffle<T>(a: T[]): T[] {
  const b = [...a];
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [b[i], b[j]] = [b[j], b[i]];
  }
  return b;
}
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
const wordsOf = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** A topic made uniform: its forms by name, sentence templates, title. */
interface Topic {
  key: string;
  title: string;
  forms: Map<string, string>;
  sentences: Array<[string, string]>;
  /** The forms set aside for queries (no note of the topic uses them). */
  reserved: string[];
}

function reserve(forms: Map<string, string>, title: string, n: number): string[] {
  const inTitle = wordsOf(title);
  const distinct = [...new Set(forms.values())].filter((f) => !inTitle.has(f));
  return shuffle(distinct).slice(0, n);
}

function ruTopic(t: RuTopic, key: string): Topic {
  const list = t.forms.split(' ');
  const forms = new Map(RU_FORMS.map((f, i) => [f as string, list[i]]));
  return { key, title: t.title, forms, sentences: RU_SENTENCES, reserved: reserve(forms, t.title, 3) };
}

function kkTopic(t: KkTopic, key: string): Topic {
  const forms = new Map(KAZAKH_FORMS.map((f) => [f as string, kazakhForm(t.noun, f as KazakhForm)]));
  return { key, title: t.title, forms, sentences: KK_SENTENCES, reserved: reserve(forms, t.title, 3) };
}

/** `n` sentences about the topic, each with an allowed form of its noun. */
function sentences(t: Topic, n: number): string[] {
  const allowed = t.sentences.filter(([f]) => !t.reserved.includes(t.forms.get(f) as string));
  return shuffle(allowed)
    .slice(0, n)
    .map(([f, s]) => {
      const w = t.forms.get(f) as string;
      return s.replace('{w}', w).replace('{W}', cap(w));
    });
}

const notes: CorpusNote[] = [];
const queries: CorpusQuery[] = [];
const topicNotes = new Map<string, string[]>();
function addNote(key: string, title: string, paragraphs: string[], topics: Topic[]) {
  notes.push({ key, body: `# ${title}\n\n${paragraphs.join(' ')}` });
  for (const t of topics) topicNotes.set(t.key, [...(topicNotes.get(t.key) ?? []), key]);
}

const ru = RU_TOPICS.map((t, i) => ruTopic(t, `ru${i}`));
const kk = KK_TOPICS.map((t, i) => kkTopic(t, `kk${i}`));
const ruMix = RU_MIX_TOPICS.map((t, i) => ruTopic(t, `rumix${i}`));
const kkMix = KK_MIX_TOPICS.map((t, i) => kkTopic(t, `kkmix${i}`));

for (const t of ru) {
  RU_ASPECTS.forEach((aspect, a) => {
    addNote(`${t.key}-${a}`, `${t.title}: ${aspect}`, shuffle([...sentences(t, 3), pick(RU_FILLER), pick(RU_FILLER)]), [
      t,
    ]);
  });
}
for (const t of kk) {
  KK_ASPECTS.forEach((aspect, a) => {
    addNote(`${t.key}-${a}`, `${t.title}: ${aspect}`, shuffle([...sentences(t, 3), pick(KK_FILLER), pick(KK_FILLER)]), [
      t,
    ]);
  });
}
// Mixed notes: a Kazakh lesson note with one Russian sentence, or a Russian note that opens in
// Kazakh, names Kazakh pupils and has one Kazakh sentence. Each pairs a Russian and a Kazakh topic.
const pairs: Array<{ key: string; r: Topic; k: Topic }> = [];
for (let i = 0; i < 48; i++) {
  const round = Math.floor(i / 12);
  const r = ruMix[i % 12];
  const k = kkMix[(i + 1 + round * 3) % 12];
  const key = `mix${i}`;
  pairs.push({ key, r, k });
  if (i % 2 === 0) {
    const body = [...shuffle([...sentences(k, 3), pick(KK_FILLER)]), 'Ата-аналарға:', ...sentences(r, 1)];
    addNote(key, `${k.title}: ${KK_ASPECTS[round]}`, body, [r, k]);
  } else {
    const [a, b] = shuffle([...KAZAKH_NAMES]).slice(0, 2);
    const body = [
      pick(KAZAKH_OPENINGS),
      ...shuffle([...sentences(r, 3), `${a} и ${b} помогали отстающим.`, pick(RU_FILLER)]),
      ...sentences(k, 1),
    ];
    addNote(key, `${r.title}: ${RU_ASPECTS[round]}`, body, [r, k]);
  }
}
for (const [list, months] of [
  [RU_NOISE, ['сентябрь', 'октябрь', 'ноябрь', 'декабрь', 'январь']],
  [KK_NOISE, ['қыркүйек', 'қазан', 'қараша', 'желтоқсан', 'қаңтар']],
] as const) {
  list.forEach(([title, body], i) => {
    for (const m of months) addNote(`noise-${title.length}-${i}-${m}`, `${title} (${m})`, [body], []);
  });
}

const relevantOf = (t: Topic) => topicNotes.get(t.key) ?? [];
for (const [group, topics] of [
  ['russian', ru],
  ['kazakh', kk],
  ['mixed', [...ruMix, ...kkMix]],
] as const) {
  for (const t of topics) for (const f of t.reserved) queries.push({ group, query: f, relevant: relevantOf(t) });
}
// A Russian and a Kazakh word of one mixed note together: only that note has both.
for (const p of pairs.slice(0, 24)) {
  queries.push({ group: 'mixed', query: `${pick(p.r.reserved)} ${pick(p.k.reserved)}`, relevant: [p.key] });
}

// Typos: a vowel swapped for another, two letters transposed, a letter dropped or doubled.
const VOWELS = [...'аоуыэяеиюәөұүі'];
function typo(word: string, kind: number): string {
  const w = [...word];
  const inner = w.map((_, i) => i).filter((i) => i > 0 && i < w.length - 1);
  const at = pick(inner);
  if (kind === 0) {
    const vs = inner.filter((i) => VOWELS.includes(w[i]));
    const v = vs.length ? pick(vs) : at;
    w[v] = pick(VOWELS.filter((x) => x !== w[v] && !'әөұүі'.includes(x) === !'әөұүі'.includes(w[v])));
  } else if (kind === 1) [w[at], w[at + 1]] = [w[at + 1], w[at]];
  else if (kind === 2) w.splice(at, 1);
  else w.splice(at, 0, w[at]);
  return w.join('');
}
const corpusWords = new Set(notes.flatMap((n) => [...wordsOf(n.body)]));
[...ru, ...kk, ...ruMix, ...kkMix].forEach((t, i) => {
  const word = [...t.reserved].sort((a, b) => b.length - a.length)[0];
  for (let k = 0; k < 4; k++) {
    const q = typo(word, (i + k) % 4);
    if (q !== word && !corpusWords.has(q)) {
      queries.push({ group: 'typos', query: q, relevant: relevantOf(t) });
      break;
    }
  }
});
queries.push({ group: 'typos', query: 'Пифогора', relevant: relevantOf(ru[2]) });
queries.push({ group: 'typos', query: 'дискрименант', relevant: relevantOf(ru[5]) });

// The honesty check: no query word occurs verbatim in a note it must find.
const byKey = new Map(notes.map((n) => [n.key, wordsOf(n.body)]));
for (const q of queries) {
  for (const w of wordsOf(q.query)) {
    const hit = q.relevant.find((k) => byKey.get(k)?.has(w));
    if (hit) throw new Error(`query "${q.query}": "${w}" occurs in ${hit}`);
  }
}

const out = new URL('./corpus.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ notes, queries }, null, 1)}\n`);
// In the project's format, so the linter leaves the checked-in file alone.
execFileSync('npx', ['biome', 'format', '--write', fileURLToPath(out)], { stdio: 'ignore' });
const count = (g: Group) => queries.filter((q) => q.group === g).length;
console.log(
  `${notes.length} notes, ${queries.length} queries (russian ${count('russian')}, kazakh ${count('kazakh')}, mixed ${count('mixed')}, typos ${count('typos')})`,
);
