import {
  complete_lesson,
  type EventKey,
  events,
  lessonId,
  mark_goal,
  type Principal,
  request_quiz,
  start_lesson,
  submit_answer,
} from '@studium/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

// Issue 32.4: each call of the lesson loop records at most one event in the outbox (one relay
// publish, one NATS message, one apply per consumer). A mark that covers the lesson says so in its
// goal_marked (`lesson_covered`); an answer whose verdict passes or fails the lesson carries it in
// lesson_passed or lesson_failed (`quiz_attempt`), with no quiz_attempt_finished of its own.
let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-one-event');
});
afterAll(async () => {
  await h?.close();
});

type Row = { subject: string; data: Record<string, unknown> };

/** The events a call recorded (outbox rows written while it ran), each checked against its contract. */
async function recorded(user: string, call: () => Promise<unknown>): Promise<Row[]> {
  const { rows } = await h.lessons.database.pool.query('select coalesce(max(id), 0) as id from outbox');
  const before = rows[0].id as string;
  await call();
  const after = await h.lessons.database.pool.query(
    `select subject, payload -> 'data' as data from outbox
      where id > $1 and payload -> 'data' ->> 'user' = $2 order by id`,
    [before, user],
  );
  const out = after.rows as Row[];
  for (const e of out) {
    const key = Object.keys(events).find((k) => events[k as EventKey].subject === e.subject) as EventKey;
    expect(events[key].payload.safeParse(e.data).success, e.subject).toBe(true);
  }
  return out;
}

const subject = (key: EventKey) => events[key].subject;

/** Finished attempts move back a day: the pause between attempts has passed. */
async function pausePasses(user: string) {
  await sql`update quiz_attempts set finished_at = finished_at - interval '1 day' where user_id = ${user}`.execute(
    h.lessons.db,
  );
}

/** Takes the quiz of a session with every answer right or wrong; returns the events of each answer. */
async function takeQuiz(p: Principal, session: string, right: boolean) {
  const key = await h.answersOf('interests');
  const q = await h.must(request_quiz, p, { session });
  const perAnswer: Row[][] = [];
  let question: string | undefined = q.question.id;
  while (question) {
    const id: string = question;
    let next: string | undefined;
    perAnswer.push(
      await recorded(p.user, async () => {
        const answer = key.get(id);
        const a = await h.must(submit_answer, p, {
          attempt: q.attempt,
          question: id,
          answer: (right ? answer?.right : answer?.wrong) as string,
          student_words: 'мой ответ',
        });
        next = a.next_question?.id;
      }),
    );
    question = next;
  }
  return { attempt: q.attempt, perAnswer };
}

describe('one event per lesson-loop call', () => {
  it('start_lesson and every mark_goal record one event; the covering mark says lesson_covered, no lesson_covered event', async () => {
    const p = await h.student('marks@one');
    let session = '';
    const started = await recorded(p.user, async () => {
      session = (await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'interests') })).session;
    });
    expect(started.map((e) => e.subject)).toEqual([subject('lessons.session_started')]);
    const s = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'interests') });
    expect(s.session).toBe(session);
    const required = s.lesson_map.flatMap((o) => o.goals).filter((g) => g.required);
    expect(required.length).toBeGreaterThan(1);
    const perMark: Row[][] = [];
    for (const g of required) {
      perMark.push(
        await recorded(p.user, () =>
          h.must(mark_goal, p, { session, goal: g.key, status: 'done', evidence: `Показал ${g.key}` }),
        ),
      );
    }
    for (const one of perMark) expect(one.map((e) => e.subject)).toEqual([subject('lessons.goal_marked')]);
    expect(perMark.map((e) => e[0]?.data.lesson_covered)).toEqual(required.map((_, i) => i === required.length - 1));
    // A mark on a covered lesson does not cover it again.
    const again = await recorded(p.user, () =>
      h.must(mark_goal, p, { session, goal: required[0]?.key as string, status: 'done', evidence: 'Ещё раз' }),
    );
    expect(again.map((e) => [e.subject, e.data.lesson_covered])).toEqual([[subject('lessons.goal_marked'), false]]);
  });

  it('submit_answer: none for an answer that does not finish the attempt, quiz_attempt_finished for a verdict the lesson goes on after, one lesson_passed carrying the passing verdict', async () => {
    const p = await h.student('quiz@one');
    const s = await h.cover(p, 'interests');
    const failed = await takeQuiz(p, s.session, false);
    expect(failed.perAnswer.slice(0, -1).every((e) => e.length === 0)).toBe(true);
    const [verdict, ...rest] = failed.perAnswer.at(-1) as Row[];
    expect(rest).toEqual([]);
    expect(verdict).toMatchObject({
      subject: subject('lessons.quiz_attempt_finished'),
      data: { attempt: failed.attempt, number: 1, score: 0, passed: false },
    });

    await pausePasses(p.user);
    const passed = await takeQuiz(p, s.session, true);
    expect(passed.perAnswer.slice(0, -1).every((e) => e.length === 0)).toBe(true);
    const last = passed.perAnswer.at(-1) as Row[];
    expect(last.map((e) => e.subject)).toEqual([subject('lessons.lesson_passed')]);
    expect(last[0]?.data).toMatchObject({
      via: 'quiz',
      lessons_passed: 1,
      quiz_attempt: { attempt: passed.attempt, number: 2, score: 1, passed: true },
    });
    // The attempt finished at the event's time, as quiz_attempt_finished's `at` said it.
    const row = await h.lessons.db
      .selectFrom('quiz_attempts')
      .select('finished_at')
      .where('id', '=', passed.attempt)
      .executeTakeFirstOrThrow();
    expect(new Date(last[0]?.data.at as string).getTime()).toBe(new Date(row.finished_at as string).getTime());

    // The quiz taken again on the passed lesson: its verdict is the one event, no second lesson_passed.
    await pausePasses(p.user);
    const back = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'interests') });
    const retaken = await takeQuiz(p, back.session, true);
    const verdictAgain = retaken.perAnswer.at(-1) as Row[];
    expect(verdictAgain).toEqual([
      {
        subject: subject('lessons.quiz_attempt_finished'),
        data: expect.objectContaining({ attempt: retaken.attempt, number: 3, passed: true }),
      },
    ]);
  });

  it("submit_answer failing a required quiz's last attempt: one lesson_failed carrying the verdict", async () => {
    const p = await h.student('fails@one');
    const s = await h.cover(p, 'interests');
    for (let n = 1; n <= 2; n++) {
      const { perAnswer } = await takeQuiz(p, s.session, false);
      expect((perAnswer.at(-1) as Row[]).map((e) => e.subject)).toEqual([subject('lessons.quiz_attempt_finished')]);
      await pausePasses(p.user);
    }
    const third = await takeQuiz(p, s.session, false);
    const last = third.perAnswer.at(-1) as Row[];
    expect(last.map((e) => e.subject)).toEqual([subject('lessons.lesson_failed')]);
    expect(last[0]?.data).toMatchObject({
      attempts_used: 3,
      failed_lessons: ['interests'],
      quiz_attempt: { attempt: third.attempt, number: 3, score: 0, passed: false },
    });
  });

  it('complete_lesson records one lesson_passed, without a verdict', async () => {
    const p = await h.student('complete@one');
    const s = await h.cover(p, 'why-prepare');
    const done = await recorded(p.user, () => h.must(complete_lesson, p, { session: s.session }));
    expect(done.map((e) => e.subject)).toEqual([subject('lessons.lesson_passed')]);
    expect(done[0]?.data.via).toBe('complete');
    expect(done[0]?.data).not.toHaveProperty('quiz_attempt');
  });
});
