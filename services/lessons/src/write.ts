import { lessonId, type Reply } from '@studium/contracts';
import type { Transaction } from 'kysely';
import type { LessonsDb } from './db.ts';
import type { LessonsDeps } from './deps.ts';
import { refusals } from './refusals.ts';
import { type Run, RunBusy } from './repositories/run.repository.ts';
import type { Session, SessionWithRun } from './repositories/session.repository.ts';

/** A refusal whose writes must commit anyway (a quiz attempt cancelled on the way: the spec's exception). */
export class Keep<T> {
  constructor(readonly reply: Reply<T>) {}
}

class Rollback {
  constructor(readonly reply: Reply<never>) {}
}

export type Trx = Transaction<LessonsDb>;

/**
 * Runs a write on a lesson run: locks the run without waiting (a concurrent writer → busy),
 * re-checks in the lock that the run is live (run_archived) and, with a session, that the session
 * is open (session_closed), reading its run's marks with it. A refusal rolls everything back, so a refused write changes nothing;
 * only a {@link Keep} refusal commits.
 */
export async function writeRun<T>(
  deps: LessonsDeps,
  runId: string,
  session: Session | null,
  fn: (trx: Trx, run: Run, session: Session | null, seen: SessionWithRun | null) => Promise<Reply<T> | Keep<T>>,
): Promise<Reply<T>> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const run = await deps.runs.lock(trx, runId);
      if (!run) throw new Error(`run ${runId} vanished`);
      if (run.archived_at !== null) throw new Rollback(refusals.runArchived(run.course, run.lesson_key));
      // With a session: the session re-read in the lock, with its run's marks and the course's
      // passed lessons in the same statement (what the session tools decide on).
      let seen: SessionWithRun | null = null;
      if (session) {
        seen = (await deps.sessions.findWithRun(session.id, trx)) ?? null;
        if (!seen) throw new Error(`session ${session.id} vanished`);
        const fresh = seen.session;
        if (fresh.status !== 'open') throw new Rollback(refusals.sessionClosed(fresh.id, fresh.status));
      }
      const out = await fn(trx, run, seen?.session ?? null, seen);
      if (out instanceof Keep) return out.reply;
      if (!out.ok) throw new Rollback(out);
      return out;
    });
  } catch (err) {
    if (err instanceof RunBusy) return refusals.busy();
    if (err instanceof Rollback) return err.reply;
    throw err;
  }
}

/** The common part of every lesson event. */
export function eventBase(s: Session, at: string) {
  return {
    user: s.user_id,
    course: s.course,
    lesson: lessonId(s.course, s.lesson_key),
    lesson_key: s.lesson_key,
    session: s.id,
    space: s.space,
    organization: s.organization,
    at,
  };
}
