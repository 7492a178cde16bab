import type { LessonChanges, Release } from '@studium/contracts';
import { canonicalJson } from './canonical.ts';
import { lessonsOf } from './release-index.ts';

/**
 * Per-lesson changes of a release against the previous active one (null for the first release:
 * every lesson is added). A lesson is changed when anything in it differs (texts, objectives,
 * items, homework, quiz); `quiz_changed` lists the changed lessons whose quiz differs, where open
 * quiz attempts cannot carry over. Moving a lesson to another chapter alone is not a change.
 */
export function lessonChanges(previous: Release | null, next: Release): LessonChanges {
  const before = new Map((previous ? lessonsOf(previous) : []).map(({ lesson }) => [lesson.key, lesson]));
  const changes: Required<LessonChanges> = { added: [], removed: [], changed: [], unchanged: [], quiz_changed: [] };
  const seen = new Set<string>();
  for (const { lesson } of lessonsOf(next)) {
    seen.add(lesson.key);
    const old = before.get(lesson.key);
    if (!old) changes.added.push(lesson.key);
    else if (canonicalJson(old) === canonicalJson(lesson)) changes.unchanged.push(lesson.key);
    else {
      changes.changed.push(lesson.key);
      if (canonicalJson(old.quiz) !== canonicalJson(lesson.quiz)) changes.quiz_changed.push(lesson.key);
    }
  }
  for (const key of before.keys()) if (!seen.has(key)) changes.removed.push(key);
  return changes;
}
