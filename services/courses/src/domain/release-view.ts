import { homeworkTask, type Release } from '@studium/contracts';
import type { IndexedLesson } from './release-index.ts';

type Lesson = IndexedLesson['lesson'];

/**
 * A lesson as the curator sees it in course_release: chapter key, hook, pass threshold, the
 * document sections filled in it, homework, objectives with items (goals) and the quiz with the
 * correct option and explanation (author roles only).
 */
export function lessonView(release: Release, { lesson, chapter }: IndexedLesson) {
  const document = release.document;
  return {
    key: lesson.key,
    title: lesson.title,
    chapter: chapter.key,
    chapter_title: chapter.title,
    hook: lesson.hook,
    pass_threshold: lesson.quiz?.pass_threshold ?? null,
    quiz: lesson.quiz
      ? { required: lesson.quiz.required, attempts: lesson.quiz.attempts, pause_minutes: lesson.quiz.pause_minutes }
      : null,
    blocks: (document?.sections ?? [])
      .filter((s) => s.lesson === lesson.key)
      .map((s) => ({ artifact: document?.key, key: s.key, title: s.title })),
    homework: homeworkTask(lesson),
    objectives: lesson.objectives.map((o) => ({
      key: o.key,
      text: o.text,
      goals: o.items.map((i) => ({ key: i.key, kind: i.kind, required: i.required, title: i.title })),
    })),
    questions: (lesson.quiz?.questions ?? []).map((q) => ({
      key: q.key,
      text: q.text,
      objective: q.objective,
      options: q.options,
      correct: q.correct,
      explanation: q.explanation.trim() === '' ? null : q.explanation,
    })),
  };
}

/** The agent package of one lesson: the course frame and the lesson slice the student's agent gets. */
export function agentPackage(release: Release, lesson: Lesson) {
  return {
    frame: release.course.frame,
    learn_about_student: release.course.learn_about_student,
    lesson: {
      key: lesson.key,
      title: lesson.title,
      hook: lesson.hook,
      promise: release.course.promise,
      directive: lesson.directive,
      material: lesson.material,
      section_hints: lesson.section_hints,
      objectives: lesson.objectives.map((o) => ({
        key: o.key,
        text: o.text,
        items: o.items.map((i) => ({
          key: i.key,
          kind: i.kind,
          required: i.required,
          title: i.title,
          details: i.details,
        })),
      })),
    },
  };
}

/** The course document by sections (null when the course has none). */
export function documentView(release: Release) {
  const d = release.document;
  if (!d) return null;
  return {
    key: d.key,
    title: d.title,
    purpose: d.purpose,
    blocks: d.sections.map((s) => ({
      key: s.key,
      title: s.title,
      description: s.description,
      lesson: s.lesson,
      rows: s.rows,
      columns: s.columns,
    })),
  };
}

/** Chapters in program order with their lesson keys. */
export function chaptersView(release: Release) {
  return release.chapters.map((c) => ({
    key: c.key,
    title: c.title,
    description: c.description,
    lessons: c.lessons.map((l) => l.key),
  }));
}
