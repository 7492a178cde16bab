import type { LessonChanges } from '@studium/contracts';

/** What a new release does to an open attempt of a lesson. */
export type AttemptFate = { action: 'move' } | { action: 'cancel'; reason: 'quiz_changed' | 'lesson_removed' };

/**
 * An open attempt moves to the new version when its lesson's quiz did not change; it is
 * cancelled when the quiz changed (quiz_changed) or the lesson was removed (lesson_removed).
 */
export function attemptFate(changes: LessonChanges, lessonKey: string): AttemptFate {
  if (changes.removed.includes(lessonKey)) return { action: 'cancel', reason: 'lesson_removed' };
  // A publisher that does not list quiz changes separately: a changed lesson counts as a changed quiz.
  const quizChanged = changes.quiz_changed
    ? changes.quiz_changed.includes(lessonKey)
    : changes.changed.includes(lessonKey);
  if (quizChanged) return { action: 'cancel', reason: 'quiz_changed' };
  return { action: 'move' };
}
