import type { ReleaseIndex } from './release-index.ts';

/** Kinds of note places (spec: the table of places in course_notes). */
export type PlaceKind =
  | 'course'
  | 'chapter'
  | 'lesson'
  | 'objective'
  | 'goal'
  | 'question'
  | 'section'
  | 'agent.frame'
  | 'agent.lesson'
  | 'agent.item'
  | 'map';

/** A target address split into its parts; `lesson` and `item` only for goal and agent.item. */
export interface Target {
  kind: PlaceKind;
  key: string | null;
  lesson?: string;
  item?: string;
}

/** A place found in the active release: its lesson (null outside lessons) and words for it. */
export interface Place {
  lesson_key: string | null;
  label: string;
}

// A key: no spaces, no slash (the slash separates lesson and item).
const KEY = /^[^\s/]+$/;
const SINGLE: Array<[string, PlaceKind]> = [
  ['agent.lesson.', 'agent.lesson'],
  ['chapter.', 'chapter'],
  ['lesson.', 'lesson'],
  ['objective.', 'objective'],
  ['question.', 'question'],
  ['section.', 'section'],
  ['map.', 'map'],
];
const PAIR: Array<[string, PlaceKind]> = [
  ['agent.item.', 'agent.item'],
  ['goal.', 'goal'],
];

/** Parses a target address; null when it is not one of the table's forms. */
export function parseTarget(target: string): Target | null {
  if (target === 'course') return { kind: 'course', key: null };
  if (target === 'agent.frame') return { kind: 'agent.frame', key: null };
  for (const [prefix, kind] of PAIR) {
    if (!target.startsWith(prefix)) continue;
    const [lesson, item, ...rest] = target.slice(prefix.length).split('/');
    if (rest.length || !lesson || !item || !KEY.test(lesson) || !KEY.test(item)) return null;
    return { kind, key: `${lesson}/${item}`, lesson, item };
  }
  for (const [prefix, kind] of SINGLE) {
    if (!target.startsWith(prefix)) continue;
    const key = target.slice(prefix.length);
    return KEY.test(key) ? { kind, key } : null;
  }
  return null;
}

/** Finds the place in a release; null when the release has no such key. */
export function findPlace(index: ReleaseIndex, t: Target): Place | null {
  const r = index.release;
  const key = t.key ?? '';
  switch (t.kind) {
    case 'course':
      return { lesson_key: null, label: `Курс «${r.course.title}»` };
    case 'agent.frame':
      return { lesson_key: null, label: `Рамка курса «${r.course.title}» в пакете агента` };
    case 'chapter': {
      const c = index.chapters.get(key);
      return c ? { lesson_key: null, label: `Глава «${c.title}»` } : null;
    }
    case 'lesson':
    case 'agent.lesson': {
      const l = index.lessons.get(key)?.lesson;
      if (!l) return null;
      return {
        lesson_key: l.key,
        label: t.kind === 'lesson' ? `Урок «${l.title}»` : `Пакет агента урока «${l.title}»`,
      };
    }
    case 'objective': {
      const o = index.objectives.get(key);
      return o ? { lesson_key: o.lesson.key, label: `Цель «${o.objective.text}» урока «${o.lesson.title}»` } : null;
    }
    case 'goal':
    case 'agent.item': {
      const item = index.item(t.lesson ?? '', t.item ?? '');
      if (!item) return null;
      const lesson = index.lessons.get(t.lesson ?? '')?.lesson.title;
      const what = t.kind === 'goal' ? 'Пункт' : 'Подробности пункта';
      const suffix = t.kind === 'goal' ? '' : ' в пакете агента';
      return { lesson_key: t.lesson ?? null, label: `${what} «${item.title}» урока «${lesson}»${suffix}` };
    }
    case 'question': {
      const q = index.questions.get(key);
      return q
        ? { lesson_key: q.lesson.key, label: `Вопрос квиза «${q.question.text}» урока «${q.lesson.title}»` }
        : null;
    }
    case 'section': {
      const s = index.sections.get(key);
      return s ? { lesson_key: null, label: `Раздел «${s.title}» документа «${r.document?.title}»` } : null;
    }
    case 'map':
      return findMapNode(index, key);
    default:
      return assertNever(t.kind);
  }
}

/**
 * A node of the course map is any keyed node of the release: the course, its document, a chapter,
 * lesson, objective, question or section. Its lesson is the one the node lies in.
 */
function findMapNode(index: ReleaseIndex, key: string): Place | null {
  const r = index.release;
  const label = `Узел карты курса ${key}`;
  if (key === r.course.key || key === r.document?.key || index.chapters.has(key) || index.sections.has(key)) {
    return { lesson_key: null, label };
  }
  const lesson =
    index.lessons.get(key)?.lesson.key ?? index.objectives.get(key)?.lesson.key ?? index.questions.get(key)?.lesson.key;
  return lesson ? { lesson_key: lesson, label } : null;
}

const KIND_WORDS: Record<PlaceKind, string> = {
  course: 'Курс',
  'agent.frame': 'Рамка курса в пакете агента',
  chapter: 'Глава',
  lesson: 'Урок',
  'agent.lesson': 'Пакет агента урока',
  objective: 'Цель',
  goal: 'Пункт',
  'agent.item': 'Подробности пункта',
  question: 'Вопрос квиза',
  section: 'Раздел документа',
  map: 'Узел карты курса',
};

/** The label of a place the active release no longer has: the kind of place and its key. */
export function missingLabel(t: Target): string {
  return t.key ? `${KIND_WORDS[t.kind]} ${t.key}` : KIND_WORDS[t.kind];
}

function assertNever(x: never): never {
  throw new Error(`unhandled place kind: ${String(x)}`);
}
