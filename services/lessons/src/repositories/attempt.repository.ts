import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { CancelReason, LessonsDb } from '../db.ts';
import type { IssuedQuestion } from '../domain/quiz.ts';

type Q = Kysely<LessonsDb>;

export const ATTEMPT_COLUMNS = [
  'id',
  'run_id',
  'session_id',
  'user_id',
  'course',
  'lesson_key',
  'number',
  'release',
  'questions',
  'threshold',
  'status',
  'score',
  'passed',
  'cancel_reason',
  'cancel_reported',
  'started_at',
  'finished_at',
] as const;

/** A quiz attempt row. */
export type Attempt = NonNullable<Awaited<ReturnType<AttemptRepository['find']>>>;

/** Quiz attempts and their answers. */
export class AttemptRepository {
  constructor(private readonly db: Q) {}

  find(id: string, q: Q = this.db) {
    return q.selectFrom('quiz_attempts').select(ATTEMPT_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** Attempts of a run, oldest first. */
  ofRun(runId: string, q: Q = this.db) {
    return q
      .selectFrom('quiz_attempts')
      .select(ATTEMPT_COLUMNS)
      .where('run_id', '=', runId)
      .orderBy('started_at')
      .execute();
  }

  /** Attempts of many runs (goal_runs). */
  ofRuns(runIds: string[], q: Q = this.db) {
    if (!runIds.length) return Promise.resolve([]);
    return q.selectFrom('quiz_attempts').select(ATTEMPT_COLUMNS).where('run_id', 'in', runIds).execute();
  }

  /** Open attempts of a course on another release than `release` (the publication's work), locked. */
  openOutdated(q: Q, course: string, release: string) {
    return q
      .selectFrom('quiz_attempts')
      .select(ATTEMPT_COLUMNS)
      .where('course', '=', course)
      .where('status', '=', 'open')
      .where('release', '!=', release)
      .forUpdate()
      .execute();
  }

  /** Starts an attempt and records the session's activity. */
  async create(
    q: Q,
    v: {
      run: string;
      session: string;
      user: string;
      course: string;
      lessonKey: string;
      number: number;
      release: string;
      questions: IssuedQuestion[];
      threshold: number;
    },
  ) {
    // The session's activity is recorded in the same statement (one round trip).
    return q
      .with('touched', (db) =>
        db.updateTable('sessions').set({ last_activity_at: sql<string>`now()` }).where('id', '=', v.session),
      )
      .insertInto('quiz_attempts')
      .values({
        id: randomUUID(),
        run_id: v.run,
        session_id: v.session,
        user_id: v.user,
        course: v.course,
        lesson_key: v.lessonKey,
        number: v.number,
        release: v.release,
        questions: JSON.stringify(v.questions),
        threshold: v.threshold,
      })
      .returning(ATTEMPT_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async cancel(q: Q, id: string, reason: CancelReason, reported: boolean) {
    await q
      .updateTable('quiz_attempts')
      .set({ status: 'cancelled', cancel_reason: reason, cancel_reported: reported, finished_at: sql<string>`now()` })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .execute();
  }

  async markReported(q: Q, id: string) {
    await q.updateTable('quiz_attempts').set({ cancel_reported: true }).where('id', '=', id).execute();
  }

  async moveTo(q: Q, id: string, release: string) {
    await q.updateTable('quiz_attempts').set({ release }).where('id', '=', id).execute();
  }

  /** Finishes an attempt once: only an open attempt gets a score (false when it was not open). */
  async finish(q: Q, id: string, score: number, passed: boolean): Promise<string | null> {
    const row = await q
      .updateTable('quiz_attempts')
      .set({ status: 'finished', score, passed, finished_at: sql<string>`now()` })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .returning('finished_at')
      .executeTakeFirst();
    return row?.finished_at ?? null;
  }

  answers(attemptId: string, q: Q = this.db) {
    return q
      .selectFrom('quiz_answers')
      .select(['question', 'answer', 'student_words', 'correct', 'answered_at'])
      .where('attempt_id', '=', attemptId)
      .orderBy('answered_at')
      .execute();
  }

  /** Answers of many attempts (goal_runs). */
  answersOf(attemptIds: string[], q: Q = this.db) {
    if (!attemptIds.length) return Promise.resolve([]);
    return q
      .selectFrom('quiz_answers')
      .select(['attempt_id', 'question', 'correct'])
      .where('attempt_id', 'in', attemptIds)
      .execute();
  }

  async answer(q: Q, v: { attempt: string; question: string; answer: string; words: string; correct: boolean }) {
    await q
      .insertInto('quiz_answers')
      .values({
        attempt_id: v.attempt,
        question: v.question,
        answer: v.answer,
        student_words: v.words,
        correct: v.correct,
      })
      .execute();
  }
}
