import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  lesson_item,
  lessonId,
  mark_goal,
  type Principal,
  request_quiz,
  resetProgress,
  start_lesson,
  submit_answer,
} from '@studium/contracts';
import { eventually } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyMap, editMap, publishMap } from '../../../test/support/lessons.ts';
import { type Harness, startHarness } from './support/harness.ts';

// A new release during lessons: open attempts move or are cancelled, removed items and lessons
// are refused, and a reset archives the runs.
let h: Harness;
let v2: { release: string };
const started: Record<string, { p: Principal; session: string; attempt?: string; question?: string }> = {};

beforeAll(async () => {
  h = await startHarness('lessons-release');
  const begin = async (name: string, lesson: string, quiz: boolean) => {
    const p = await h.student(`${name}@t`);
    const s = quiz
      ? await h.cover(p, lesson)
      : await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, lesson) });
    const entry: (typeof started)[string] = { p, session: s.session };
    if (quiz) {
      const q = await h.must(request_quiz, p, { session: s.session });
      entry.attempt = q.attempt;
      entry.question = q.question.id;
    }
    started[name] = entry;
  };
  await begin('moved', 'interests', true);
  await begin('changed', 'batna', true);
  await begin('away', 'batna', true);
  await begin('removed', 'opening', true);
  await begin('removed2', 'opening', true);
  await begin('goal', 'why-prepare', false);
  await begin('outdated', 'interests', true);
  await begin('outdated2', 'interests', true);
  // "moved" answers one question on the old release
  const key = await h.answersOf('interests');
  const m = started.moved as { p: Principal; attempt: string; question: string };
  const first = await h.must(submit_answer, m.p, {
    attempt: m.attempt,
    question: m.question,
    answer: key.get(m.question)?.right as string,
    student_words: 'второй',
  });
  m.question = first.next_question?.id as string;

  // v2: interests' hook changes (quiz unchanged), batna's quiz changes, opening is removed,
  // why-prepare loses its optional choice item.
  const dir = await copyMap('negotiation-basics');
  await editMap(dir, 'chapters/preparation/interests/lesson.yaml', 'hook: >-\n', 'hook: >-\n  Новая редакция.\n');
  await editMap(dir, 'chapters/preparation/batna/quiz.yaml', 'pause_minutes: 30', 'pause_minutes: 20');
  await editMap(dir, 'chapters/conduct/chapter.yaml', '  - opening\n', '');
  await rm(join(dir, 'chapters/conduct/opening'), { recursive: true });
  const why = 'chapters/preparation/why-prepare/lesson.yaml';
  // The optional choice item is the last item of the lesson: cut it up to section_hints.
  const text = await readFile(join(dir, why), 'utf8');
  const cut = text.indexOf('      - kind: choice\n        id: C1');
  await writeFile(join(dir, why), text.slice(0, cut) + text.slice(text.indexOf('section_hints:')));
  v2 = await publishMap(h.env.bus, dir);
  expect(v2.release).not.toBe(h.basics.release);
  await eventually(async () => {
    const row = await h.lessons.db.selectFrom('active_releases').select('release').executeTakeFirstOrThrow();
    if (row.release !== v2.release) throw new Error('not yet');
  });
  // Two attempts that started on the old release while it was being replaced: the publication did not see them.
  for (const name of ['outdated', 'outdated2']) {
    await h.lessons.db
      .updateTable('quiz_attempts')
      .set({ release: h.basics.release })
      .where('id', '=', started[name]?.attempt as string)
      .execute();
  }
});
afterAll(async () => {
  await h?.close();
});

describe('a new release during lessons', () => {
  it('moves an open attempt whose quiz did not change: answers and threshold stay', async () => {
    const m = started.moved as { p: Principal; attempt: string; question: string };
    const row = await h.lessons.db
      .selectFrom('quiz_attempts')
      .select(['release', 'status'])
      .where('id', '=', m.attempt)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ release: v2.release, status: 'open' });
    const key = await h.answersOf('interests');
    let question = m.question;
    let result: Record<string, unknown> | undefined;
    for (;;) {
      const a = await h.must(submit_answer, m.p, {
        attempt: m.attempt,
        question,
        answer: key.get(question)?.right as string,
        student_words: 'ответ',
      });
      if (!a.next_question) {
        result = a.result as Record<string, unknown>;
        break;
      }
      question = a.next_question.id;
    }
    expect(result).toMatchObject({ passed: true, score: 1, pass_threshold: 0.67 });
  });

  it('quiz_changed: the answer is refused once, request_quiz then starts afresh without previous_attempt_cancelled', async () => {
    const c = started.changed as { p: Principal; session: string; attempt: string; question: string };
    const r = await h.call(submit_answer, c.p, {
      attempt: c.attempt,
      question: c.question,
      answer: 'V1',
      student_words: '1',
    });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'quiz_attempt_cancelled', attempt: c.attempt, session: c.session, reason: 'quiz_changed' },
    });
    const q = await h.must(request_quiz, c.p, { session: c.session });
    expect(q.attempt).not.toBe(c.attempt);
    expect(q.previous_attempt_cancelled).toBeUndefined();
    const numbers = await h.lessons.db
      .selectFrom('quiz_attempts')
      .select(['number', 'status'])
      .where('user_id', '=', c.p.user)
      .orderBy('started_at')
      .execute();
    expect(numbers).toEqual([
      { number: 1, status: 'cancelled' },
      { number: 1, status: 'open' },
    ]);
  });

  it('quiz_changed while the student was away: previous_attempt_cancelled comes once', async () => {
    const a = started.away as { p: Principal; session: string; attempt: string };
    const q = await h.must(request_quiz, a.p, { session: a.session });
    expect(q.previous_attempt_cancelled).toEqual({ attempt: a.attempt, reason: 'quiz_changed' });
    expect(q.next).toContain('курс обновился');
    const again = await h.must(request_quiz, a.p, { session: a.session });
    expect(again.attempt).toBe(q.attempt);
    expect(again.previous_attempt_cancelled).toBeUndefined();
  });

  it('lesson_removed: the answer is refused; request_quiz cancels and refuses lesson_not_in_release', async () => {
    const r = started.removed as { p: Principal; session: string; attempt: string; question: string };
    expect(
      await h.call(submit_answer, r.p, { attempt: r.attempt, question: r.question, answer: 'A', student_words: 'A' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'quiz_attempt_cancelled', reason: 'lesson_removed' },
    });
    const r2 = started.removed2 as { p: Principal; session: string; attempt: string };
    expect(await h.call(request_quiz, r2.p, { session: r2.session })).toMatchObject({
      ok: false,
      error: { code: 'lesson_not_in_release', lesson_key: 'opening', release: v2.release },
    });
    expect(
      await h.call(mark_goal, r2.p, { session: r2.session, goal: 'term:T1', status: 'done', evidence: 'x' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'lesson_not_in_release' },
    });
    expect(await h.call(lesson_item, r2.p, { session: r2.session, goal: 'term:T1' })).toMatchObject({
      ok: false,
      error: { code: 'lesson_not_in_release' },
    });
  });

  it('attempt_outdated: the first answer into an attempt the publication missed cancels it; request_quiz reports it once', async () => {
    const o = started.outdated as { p: Principal; session: string; attempt: string; question: string };
    expect(
      await h.call(submit_answer, o.p, { attempt: o.attempt, question: o.question, answer: 'V1', student_words: '1' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'quiz_attempt_cancelled', reason: 'attempt_outdated', attempt: o.attempt },
    });
    expect((await h.must(request_quiz, o.p, { session: o.session })).previous_attempt_cancelled).toBeUndefined();
    const o2 = started.outdated2 as { p: Principal; session: string; attempt: string };
    const q = await h.must(request_quiz, o2.p, { session: o2.session });
    expect(q.attempt).not.toBe(o2.attempt);
    expect(q.previous_attempt_cancelled).toEqual({ attempt: o2.attempt, reason: 'attempt_outdated' });
  });

  it('goal_removed: marking a removed item; lesson_item does not know it; lesson_map leaves it out', async () => {
    const g = started.goal as { p: Principal; session: string };
    expect(
      await h.call(mark_goal, g.p, { session: g.session, goal: 'choice:C1', status: 'done', evidence: 'выбрал' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'goal_removed', goal: 'choice:C1' },
    });
    expect(await h.call(lesson_item, g.p, { session: g.session, goal: 'choice:C1' })).toMatchObject({
      ok: false,
      error: { code: 'goal_unknown' },
    });
    const s = await h.must(start_lesson, g.p, { lesson: lessonId(h.basics.course, 'why-prepare') });
    expect(s.lesson_map.flatMap((o) => o.goals).map((x) => x.key)).not.toContain('choice:C1');
  });

  it('emits quiz_attempt_cancelled for every cancellation with its reason', async () => {
    const rows = await h.lessons.db
      .selectFrom('outbox' as never)
      .select(['subject', 'payload'] as never)
      .execute();
    const reasons = (rows as Array<{ subject: string; payload: { data: { reason: string } } }>)
      .filter((r) => r.subject === 'evt.lessons.quiz_attempt_cancelled')
      .map((r) => r.payload.data.reason)
      .sort();
    expect(reasons).toEqual([
      'attempt_outdated',
      'attempt_outdated',
      'lesson_removed',
      'lesson_removed',
      'quiz_changed',
      'quiz_changed',
    ]);
  });

  it('run_archived after a reset of progress; start_lesson begins afresh', async () => {
    const g = started.goal as { p: Principal; session: string };
    await h.must(mark_goal, g.p, { session: g.session, goal: 'term:T1', status: 'done', evidence: 'назвал пример' });
    const reset = await h.env.bus.request(resetProgress, null, { user: g.p.user, course: h.basics.course });
    expect(reset).toMatchObject({ ok: true, data: { archived: 1 } });
    expect(
      await h.call(mark_goal, g.p, { session: g.session, goal: 'term:T1', status: 'done', evidence: 'x' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'run_archived' },
    });
    const fresh = await h.must(start_lesson, g.p, { lesson: lessonId(h.basics.course, 'why-prepare') });
    expect(fresh.session).not.toBe(g.session);
    expect(fresh.start.opening).toBe('first_in_course');
    expect(fresh.lesson_map.flatMap((o) => o.goals).every((x) => x.status === 'open')).toBe(true);
  });
});
