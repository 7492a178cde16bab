// A handler must never take a second connection from the pool while its transaction holds one:
// once every connection is held by such a transaction, each waits for another forever. With two
// connections (one is the outbox relay's LISTEN) a lesson pass that read the course's failed
// lessons outside its transaction hung for good, and the process could not stop (the shipped
// image's smoke test found it).
import { lessonId, request_quiz, start_lesson, submit_answer } from '@studium/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('lessons-small-pool', { DB_POOL_MAX: '2' });
});

afterAll(async () => {
  await h?.close();
});

describe('lessons on a pool of two connections', () => {
  it('passes a lesson whose course has a limited required quiz (the pass reads the failed lessons in its own transaction)', async () => {
    const p = await h.student('small-pool@t');
    const s = await h.cover(p, 'interests');
    const q = await h.must(request_quiz, p, { session: s.session });
    const key = await h.answersOf('interests');
    let question: string | undefined = q.question.id;
    let result: unknown;
    while (question) {
      const a: { result?: unknown; next_question: { id: string } | null } = await h.must(submit_answer, p, {
        attempt: q.attempt,
        question,
        answer: key.get(question)?.right as string,
        student_words: 'знаю',
      });
      result = a.result;
      question = a.next_question?.id;
    }
    expect(result).toMatchObject({ passed: true, session_status: 'closed' });
    // And the service still answers: no connection is left waiting.
    const next = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'batna') });
    expect(next.session).toEqual(expect.any(String));
    await h.lessons.stop();
  }, 30_000);
});
