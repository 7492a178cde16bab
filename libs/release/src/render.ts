import type { ReleaseSummary } from './build.ts';

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One line of what a release holds: `2 chapters, 5 lessons, 10 objectives (24 items), …`. */
export function summaryLine(s: ReleaseSummary): string {
  const parts = [
    count(s.chapters, 'chapter'),
    count(s.lessons, 'lesson'),
    `${count(s.objectives, 'objective')} (${count(s.items, 'item')})`,
    `${count(s.quizzes, 'quiz', 'quizzes')} (${count(s.questions, 'question')})`,
    count(s.homework, 'homework', 'homework'),
    s.sections ? `a document of ${count(s.sections, 'section')}` : 'no document',
  ];
  return parts.join(', ');
}
