import {
  complete_lesson,
  course_outline,
  lessonId,
  type Principal,
  request_quiz,
  resetProgress,
  start_lesson,
  submit_answer,
} from '@studium/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studentOf } from '../../../test/support/lessons.ts';
import { type Harness, startHarness } from './support/harness.ts';

// The chain refusals of the writing tools that the other files do not produce: not_your_session,
// run_archived and busy of request_quiz, complete_lesson and submit_answer, and access refused
// while an attempt is open.
let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-chain');
});
afterAll(async () => {
  await h?.close();
});

/** Calls `call` in pairs at once until one of a pair is refused busy; every reply is ok or busy. */
async function raceUntilBusy(call: () => Promise<{ ok: boolean; error?: { code: string } }>) {
  for (let round = 0; round < 30; round++) {
    const replies = await Promise.all([call(), call()]);
    const codes = replies.map((r) => (r.ok ? 'ok' : r.error?.code));
    if (codes.includes('busy')) return codes;
  }
  return [];
}

describe('chain refusals of the writing tools', () => {
  it('not_your_session for request_quiz and complete_lesson', async () => {
    const p = await h.student('owner@t');
    const other = await h.student('intruder@t');
    const s = await h.must(start_lesson, p, {});
    const refused = { ok: false, error: { code: 'not_your_session' } };
    expect(await h.call(request_quiz, other, { session: s.session })).toMatchObject(refused);
    expect(await h.call(complete_lesson, other, { session: s.session })).toMatchObject(refused);
  });

  it('run_archived for request_quiz and complete_lesson after a reset', async () => {
    const p = await h.student('archived@t');
    const s = await h.cover(p, 'interests');
    const w = await h.cover(p, 'why-prepare');
    await h.env.bus.request(resetProgress, null, { user: p.user, course: h.basics.course });
    expect(await h.call(request_quiz, p, { session: s.session })).toMatchObject({
      ok: false,
      error: { code: 'run_archived' },
    });
    expect(await h.call(complete_lesson, p, { session: w.session })).toMatchObject({
      ok: false,
      error: { code: 'run_archived' },
    });
  });

  it('busy for request_quiz, submit_answer and complete_lesson called twice at once', async () => {
    const p = await h.student('racer@t');
    const s = await h.cover(p, 'batna');
    expect(await raceUntilBusy(() => h.call(request_quiz, p, { session: s.session }))).toContain('busy');
    const attempts = await h.lessons.db
      .selectFrom('quiz_attempts')
      .select('id')
      .where('user_id', '=', p.user)
      .execute();
    expect(attempts).toHaveLength(1);
    const q = await h.must(request_quiz, p, { session: s.session });
    const answer = { attempt: q.attempt, question: q.question.id, answer: 'V1', student_words: '1' };
    const [a, b] = await Promise.all([h.call(submit_answer, p, answer), h.call(submit_answer, p, answer)]);
    const codes = [a, b].map((r) => (r.ok ? 'ok' : r.error.code)).sort();
    // one is taken; the other is busy (both at once) or a mismatch (the question is answered already)
    expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
    expect(['busy', 'question_mismatch']).toContain(codes.find((c) => c !== 'ok'));
    const w = await h.cover(p, 'why-prepare');
    const done = await Promise.all([
      h.call(complete_lesson, p, { session: w.session }),
      h.call(complete_lesson, p, { session: w.session }),
    ]);
    const doneCodes = done.map((r) => (r.ok ? 'ok' : r.error.code));
    expect(doneCodes.filter((c) => c === 'ok')).toHaveLength(1);
    expect(['busy', 'session_closed']).toContain(doneCodes.find((c) => c !== 'ok'));
  });

  it('access is re-checked on every answer: organization_suspended while an attempt is open', async () => {
    const a = h.enrollment.admin;
    await a.upsertOrganization('pause', 'Пауза');
    await a.allowCourse('pause', h.basics.course);
    await a.upsertUser('paused@t', 'Сотрудник', ['Student']);
    await a.addMember('pause', 'paused@t', 'member');
    await a.assignCourse('pause', 'paused@t', h.basics.course);
    const p: Principal = studentOf('paused@t', 'pause');
    const s = await h.cover(p, 'interests');
    const q = await h.must(request_quiz, p, { session: s.session });
    await a.setSuspended('pause', true);
    // The projection follows enrollment within one event's lag (docs/decisions.md).
    await h.accessSettled('paused@t');
    expect(
      await h.call(submit_answer, p, { attempt: q.attempt, question: q.question.id, answer: 'V1', student_words: '1' }),
    ).toMatchObject({ ok: false, error: { code: 'organization_suspended' } });
    expect(await h.call(course_outline, p, { course: h.basics.course })).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended' },
    });
    expect(s.lesson.id).toBe(lessonId(h.basics.course, 'interests'));
  });
});
