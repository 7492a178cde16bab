import { type OutputOf, type Principal, sessionProgress } from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';

/** The objectives of a lesson in progress, as lessons.session_progress gives them. */
export type Objectives = OutputOf<typeof sessionProgress>['objectives'];

/**
 * The progress of the student's open lesson session on a course in a space (update_artifact's
 * «посреди занятия»), or null: no open session, or lessons did not answer within `timeoutMs`
 * (not deployed, down, slow, a refusal or a failure) — the write never waits longer nor fails for it.
 */
export async function lessonProgress(
  deps: { bus: Bus; log: Logger; timeoutMs: number },
  principal: Principal,
  q: { course: string; space: string },
): Promise<Objectives | null> {
  try {
    const reply = await deps.bus.request(
      sessionProgress,
      principal,
      { user: principal.user, ...q },
      { timeoutMs: deps.timeoutMs },
    );
    if (!reply.ok || reply.data.session === null) return null;
    return reply.data.objectives;
  } catch (err) {
    deps.log.debug({ err, subject: sessionProgress.subject }, 'lesson progress did not answer');
    return null;
  }
}
