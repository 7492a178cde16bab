import type { Release } from '@studium/contracts';
import { lessonsOf } from './release-index.ts';

/**
 * Checks the schema cannot express: keys that notes, runs and goal marks address must be unique
 * (chapters, lessons, objectives, questions, sections in the course; items in their lesson), and a
 * question's correct option must be one of its options. Returns the problems, empty when sound.
 */
export function releaseProblems(release: Release): string[] {
  const problems: string[] = [];
  const lessons = lessonsOf(release).map((l) => l.lesson);
  const unique = (kind: string, keys: string[]) => {
    const seen = new Set<string>();
    for (const key of keys) {
      if (seen.has(key)) problems.push(`${kind} ${key}: ключ повторяется`);
      seen.add(key);
    }
  };
  unique(
    'chapter',
    release.chapters.map((c) => c.key),
  );
  unique(
    'lesson',
    lessons.map((l) => l.key),
  );
  unique(
    'objective',
    lessons.flatMap((l) => l.objectives.map((o) => o.key)),
  );
  unique(
    'question',
    lessons.flatMap((l) => (l.quiz?.questions ?? []).map((q) => q.key)),
  );
  unique(
    'section',
    (release.document?.sections ?? []).map((s) => s.key),
  );
  for (const lesson of lessons) {
    unique(
      `lesson ${lesson.key} item`,
      lesson.objectives.flatMap((o) => o.items.map((i) => i.key)),
    );
    for (const q of lesson.quiz?.questions ?? []) {
      if (!q.options.some((o) => o.id === q.correct)) {
        problems.push(`question ${q.key}: верного варианта ${q.correct} нет среди вариантов`);
      }
    }
  }
  return problems;
}
