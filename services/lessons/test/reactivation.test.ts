import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  course_outline,
  lessonId,
  list_my_courses,
  mark_goal,
  type Principal,
  request_quiz,
  start_lesson,
  submit_answer,
} from '@studium/contracts';
import { eventually } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyMap, EXAMPLES, editMap, publishMap } from '../../../test/support/lessons.ts';
import { type Harness, startHarness } from './support/harness.ts';

// Re-activating an older release (the unchanged map of version 1 published again after version
// 2): lessons follows the release courses says is active, in the order activations happened, and
// moves or cancels open quiz attempts as for a new release.
let h: Harness;
let v2: { release: string; version: number };
let again: { release: string; version: number };
const open: Record<string, { p: Principal; session: string; attempt: string; question: string }> = {};

async function activeRelease(): Promise<string> {
  const row = await h.lessons.db.selectFrom('active_releases').select('release').executeTakeFirstOrThrow();
  return row.release;
}

beforeAll(async () => {
  h = await startHarness('lessons-reactivation');
  // v2: batna's quiz changes, opening is removed, why-prepare loses its optional choice item.
  const dir = await copyMap('negotiation-basics');
  await editMap(dir, 'chapters/preparation/batna/quiz.yaml', 'pause_minutes: 30', 'pause_minutes: 20');
  await editMap(dir, 'chapters/conduct/chapter.yaml', '  - opening\n', '');
  await rm(join(dir, 'chapters/conduct/opening'), { recursive: true });
  const why = join(dir, 'chapters/preparation/why-prepare/lesson.yaml');
  const text = await readFile(why, 'utf8');
  await writeFile(
    why,
    text.slice(0, text.indexOf('      - kind: choice\n        id: C1')) + text.slice(text.indexOf('section_hints:')),
  );
  v2 = await publishMap(h.env.bus, dir);
  await eventually(async () => expect(await activeRelease()).toBe(v2.release));
  // Attempts open on v2: interests' quiz is the same in v1, batna's differs.
  for (const [name, lesson] of [
    ['same', 'interests'],
    ['changed', 'batna'],
  ] as const) {
    const p = await h.student(`${name}@t`);
    const s = await h.cover(p, lesson);
    const q = await h.must(request_quiz, p, { session: s.session });
    open[name] = { p, session: s.session, attempt: q.attempt, question: q.question.id };
  }
  // The unchanged map of version 1 again: no new version, version 1 is active again.
  again = await publishMap(h.env.bus, resolve(EXAMPLES, 'negotiation-basics'));
});
afterAll(async () => {
  await h?.close();
});

describe('re-activating an older release', () => {
  it('courses re-activates version 1 and lessons follows it', async () => {
    expect(again).toMatchObject({ release: h.basics.release, version: 1 });
    await eventually(async () => expect(await activeRelease()).toBe(h.basics.release));
  });

  it('the lesson v2 removed is in the outline and starts again; the item v2 removed can be marked', async () => {
    const p = await h.student('back@t');
    const outline = await h.must(course_outline, p, { course: h.basics.course });
    const keys = outline.chapters.flatMap((c) => c.lessons.map((l) => l.key));
    expect(keys).toContain('opening');
    const s = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'opening') });
    expect(s.lesson.key).toBe('opening');
    const w = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'why-prepare') });
    expect(w.lesson_map.flatMap((o) => o.goals).map((g) => g.key)).toContain('choice:C1');
    expect(
      await h.call(mark_goal, p, { session: w.session, goal: 'choice:C1', status: 'done', evidence: 'выбрала' }),
    ).toMatchObject({ ok: true });
    // Enrollment's course list follows the same release (five lessons again, v2 had four).
    await eventually(async () => {
      const mine = await h.call(list_my_courses, p, {});
      if (!mine.ok) throw new Error(mine.error.code);
      expect(mine.data.courses.find((c) => c.course === h.basics.course)?.lessons_total).toBe(5);
    });
  });

  it('an open attempt whose quiz is the same moves to the re-activated release', async () => {
    const m = open.same as (typeof open)[string];
    const row = await h.lessons.db
      .selectFrom('quiz_attempts')
      .select(['release', 'status'])
      .where('id', '=', m.attempt)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ release: h.basics.release, status: 'open' });
    const key = await h.answersOf('interests');
    const a = await h.call(submit_answer, m.p, {
      attempt: m.attempt,
      question: m.question,
      answer: key.get(m.question)?.right as string,
      student_words: 'ответ',
    });
    expect(a.ok).toBe(true);
  });

  it('an open attempt whose quiz differs is cancelled (quiz_changed)', async () => {
    const c = open.changed as (typeof open)[string];
    const row = await h.lessons.db
      .selectFrom('quiz_attempts')
      .select(['status', 'cancel_reason'])
      .where('id', '=', c.attempt)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'cancelled', cancel_reason: 'quiz_changed' });
    expect(
      await h.call(submit_answer, c.p, { attempt: c.attempt, question: c.question, answer: 'V1', student_words: '1' }),
    ).toMatchObject({ ok: false, error: { code: 'quiz_attempt_cancelled', reason: 'quiz_changed' } });
  });
});
