import type { AccessChanged } from '@studium/contracts';
import { type Kysely, sql } from 'kysely';
import type { LessonsDb } from '../db.ts';
import type { Trx } from '../write.ts';
import { ATTEMPT_COLUMNS, type Attempt } from './attempt.repository.ts';
import { type MarkRow, marksFrom, SESSION_COLUMNS, type Session } from './session.repository.ts';

/** submit_answer's first read, one statement: the attempt's owner and place, its session and the active release row. */
export async function answerContext(db: Kysely<LessonsDb>, attemptId: string) {
  const row = await db
    .selectFrom('quiz_attempts as a')
    .leftJoin('sessions as s', 's.id', 'a.session_id')
    .leftJoin('active_releases as ar', 'ar.course', 'a.course')
    .select([
      'a.id as attempt_id',
      'a.user_id as attempt_user',
      'a.run_id as attempt_run',
      'a.course as attempt_course',
    ])
    .select(SESSION_COLUMNS.map((c) => `s.${c}` as const))
    .select('ar.release as active_release')
    .select(
      sql<AccessChanged | null>`(select d.doc from access_students d where d.user_id = a.user_id)`.as('access_doc'),
    )
    .where('a.id', '=', attemptId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { attempt_id, attempt_user, attempt_run, attempt_course, active_release, access_doc, ...session } = row;
  return {
    attempt: { id: attempt_id, user_id: attempt_user, run_id: attempt_run, course: attempt_course },
    // A left join: every session column is null without the session.
    session: session.id === null ? undefined : (session as Session),
    activeRelease: active_release,
    accessDoc: access_doc,
  };
}

/**
 * What an answer decides on under the run's lock, one statement (it took up to four): the attempt,
 * the course's active release row, the answers given so far (oldest first), the run's marks and
 * the lesson keys the student has passed in the course.
 */
export async function answerState(trx: Trx, attemptId: string) {
  const row = await trx
    .selectFrom('quiz_attempts as a')
    .select(ATTEMPT_COLUMNS.map((c) => `a.${c}` as const))
    .select([
      sql<string | null>`(select release from active_releases ar where ar.course = a.course)`.as('active_release'),
      sql<Array<[string, boolean]>>`(select coalesce(json_agg(json_build_array(x.question, x.correct)
          order by x.answered_at), '[]') from quiz_answers x where x.attempt_id = a.id)`.as('answers'),
      sql<MarkRow[]>`(select coalesce(json_agg(json_build_array(m.goal, m.objective, m.status, m.evidence,
          m.session_id, m.marked_at)), '[]') from goal_marks m where m.run_id = a.run_id)`.as('marks'),
      sql<string[]>`(select coalesce(json_agg(r.lesson_key), '[]') from runs r
          where r.user_id = a.user_id and r.course = a.course and r.archived_at is null and r.status = 'passed')`.as(
        'passed',
      ),
    ])
    .where('a.id', '=', attemptId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { active_release, answers, marks, passed, ...attempt } = row;
  return {
    attempt: attempt as Attempt,
    activeRelease: active_release,
    answers: answers.map(([question, correct]) => ({ question, correct })),
    marks: marksFrom(marks),
    passed: new Set(passed),
  };
}

/** An answer and the session's activity, one statement. */
export async function writeAnswer(
  trx: Trx,
  v: { attempt: string; session: string; question: string; answer: string; words: string; correct: boolean },
) {
  await sql`with t as (update sessions set last_activity_at = now() where id = ${v.session})
    insert into quiz_answers (attempt_id, question, answer, student_words, correct)
    values (${v.attempt}, ${v.question}, ${v.answer}, ${v.words}, ${v.correct})`.execute(trx);
}
