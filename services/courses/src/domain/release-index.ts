import type { Release } from '@studium/contracts';

type Chapter = Release['chapters'][number];
type Lesson = Chapter['lessons'][number];
type Objective = Lesson['objectives'][number];
type Item = Objective['items'][number];
type Question = NonNullable<Lesson['quiz']>['questions'][number];
type Section = NonNullable<Release['document']>['sections'][number];

/** A lesson with its chapter. */
export interface IndexedLesson {
  lesson: Lesson;
  chapter: Chapter;
}

/** Lookups by key over one release (keys are unique in the course; items within their lesson). */
export interface ReleaseIndex {
  release: Release;
  chapters: Map<string, Chapter>;
  lessons: Map<string, IndexedLesson>;
  objectives: Map<string, { objective: Objective; lesson: Lesson }>;
  questions: Map<string, { question: Question; lesson: Lesson }>;
  sections: Map<string, Section>;
  /** Items of a lesson by goal key (`term:T1`). */
  item(lessonKey: string, itemKey: string): Item | undefined;
}

/** Every lesson of a release in program order, with its chapter. */
export function lessonsOf(release: Release): IndexedLesson[] {
  return release.chapters.flatMap((chapter) => chapter.lessons.map((lesson) => ({ lesson, chapter })));
}

/** Builds the lookups of a release (a pass over the content; no I/O). */
export function indexRelease(release: Release): ReleaseIndex {
  const lessons = new Map(lessonsOf(release).map((l) => [l.lesson.key, l]));
  const objectives = new Map<string, { objective: Objective; lesson: Lesson }>();
  const questions = new Map<string, { question: Question; lesson: Lesson }>();
  for (const { lesson } of lessons.values()) {
    for (const objective of lesson.objectives) objectives.set(objective.key, { objective, lesson });
    for (const question of lesson.quiz?.questions ?? []) questions.set(question.key, { question, lesson });
  }
  return {
    release,
    chapters: new Map(release.chapters.map((c) => [c.key, c])),
    lessons,
    objectives,
    questions,
    sections: new Map((release.document?.sections ?? []).map((s) => [s.key, s])),
    item(lessonKey, itemKey) {
      const lesson = lessons.get(lessonKey)?.lesson;
      for (const objective of lesson?.objectives ?? []) {
        const found = objective.items.find((i) => i.key === itemKey);
        if (found) return found;
      }
      return undefined;
    },
  };
}
