import type { ReleaseLesson } from './release.ts';

/**
 * A lesson's homework task in words, the same in every tool that shows it (start_lesson,
 * course_outline, my_homework, course_release): the spec names the fields (title, description,
 * answer mode, due rule) but not their wording, so one function words them for all services.
 * Null when the lesson has no homework.
 */
export function homeworkTask(lesson: Pick<ReleaseLesson, 'title' | 'homework'>) {
  const hw = lesson.homework;
  if (!hw) return null;
  return {
    title: homeworkTitle(lesson.title),
    description: hw.description,
    answer_mode: hw.answer_mode,
    due: homeworkDueRule(hw.due_days),
  };
}

/** The title of a lesson's homework task. */
export function homeworkTitle(lessonTitle: string): string {
  return `Домашнее задание к уроку «${lessonTitle}»`;
}

/** The due rule in words: «7 дней после закрытия урока»; null — no due date. */
export function homeworkDueRule(dueDays: number | null): string | null {
  if (dueDays === null) return null;
  return `${dueDays} ${days(dueDays)} после закрытия урока`;
}

function days(n: number): string {
  const mod10 = n % 10;
  const mod100 = n % 100;
  if (mod10 === 1 && mod100 !== 11) return 'день';
  if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return 'дня';
  return 'дней';
}
