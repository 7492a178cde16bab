import { complete_lesson, lessonId, type OutputOf, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import type { LessonsDeps } from '../deps.ts';
import { openGoals, quizRequired } from '../domain/lesson-progress.ts';
import { CLOSING_RULES } from '../domain/teaching-rules.ts';
import { fetchEmptyBlocks } from '../lesson-context.ts';
import { nextLessonRef, passRun } from '../lesson-pass.ts';
import { refusals } from '../refusals.ts';
import { loadSession } from '../session-context.ts';
import { writeRun } from '../write.ts';

type Out = OutputOf<typeof complete_lesson>;

/** complete_lesson: passes a lesson without a required quiz once its required items are closed, and closes the session. */
export function completeLessonHandler(deps: LessonsDeps) {
  return endpoint(complete_lesson, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const loaded = await loadSession(deps, principal, args.session);
    if (!loaded.ok) return loaded;
    const { session, access, active, placed } = loaded.data;
    if (!placed) return refusals.lessonNotInRelease(session.course, session.lesson_key, active.release);
    const lesson = placed.lesson;
    // The document's empty sections do not change with the pass: asked while the write runs.
    const emptyBlocks = fetchEmptyBlocks(
      deps.bus,
      deps.log,
      deps.config.CONTEXT_TIMEOUT_MS,
      {
        user: session.user_id,
        course: session.course,
        release: active.release,
        lesson: session.lesson_key,
        space: session.space,
      },
      principal,
    );
    const reply = await writeRun<Out>(deps, session.run_id, session, async (trx, run, fresh, seen) => {
      if (!seen) throw new Error('a session write without its session');
      const open = openGoals(lesson, seen.marks);
      if (open.length) return refusals.goalsOpen(open);
      if (quizRequired(lesson)) return refusals.quizRequired();
      const at = new Date().toISOString();
      const standing = await passRun(trx, deps, {
        run,
        session: fresh ?? session,
        access,
        active,
        via: 'complete',
        at,
        passed: seen.passed,
        close: session.id,
      });
      return ok({
        lesson: lessonId(session.course, session.lesson_key),
        status: 'closed',
        next_lesson: nextLessonRef(active, standing),
        empty_blocks: [],
        ...(session.channel === 'agent' ? { teaching_rules: CLOSING_RULES } : {}),
      });
    });
    if (!reply.ok) return reply;
    reply.data.empty_blocks = await emptyBlocks;
    return reply;
  });
}
