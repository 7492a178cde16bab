import { RELEASE_PUBLISHED, ReleasePublished } from '@studium/contracts';
import { type RunningConsumer, startConsumer } from '@studium/platform';
import type { NatsConnection } from 'nats';
import type { LessonsDeps } from '../deps.ts';
import { attemptFate } from '../domain/release-change.ts';
import { cancelAttempt } from '../lesson-pass.ts';

/** Durable name of the release consumer (replicas share it). */
export const RELEASE_CONSUMER = 'lessons-releases';

/**
 * On `evt.courses.release_published`: the course's active release moves forward and, in the same
 * transaction, every open attempt of the course on an older release moves to the new one when its
 * lesson's quiz did not change, or is cancelled (quiz_changed, lesson_removed). An attempt that
 * starts on the old release after this commit is caught by its first answer (attempt_outdated).
 */
export function startReleaseConsumer(deps: LessonsDeps, nc: NatsConnection): Promise<RunningConsumer> {
  return startConsumer({
    nc,
    prefix: deps.bus.prefix,
    durable: RELEASE_CONSUMER,
    subjects: [RELEASE_PUBLISHED],
    db: deps.db,
    log: deps.log,
    async handle(trx, event) {
      const parsed = ReleasePublished.safeParse(event.data);
      if (!parsed.success) {
        deps.log.error(
          { event: event.id, issues: parsed.error.issues },
          'lessons: malformed release_published dropped',
        );
        return;
      }
      const p = parsed.data;
      if (!(await deps.releaseRows.advance(trx, p.course, p.release, p.version))) return;
      for (const attempt of await deps.attempts.openOutdated(trx, p.course, p.release)) {
        const fate = attemptFate(p.lessons, attempt.lesson_key);
        if (fate.action === 'move') await deps.attempts.moveTo(trx, attempt.id, p.release);
        else await cancelAttempt(trx, deps, attempt, fate.reason, false);
      }
    },
  });
}
