import { type RunningConsumer, startEventConsumer } from '@studium/platform';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import type { LessonsDeps } from '../deps.ts';
import { attemptFate } from '../domain/release-change.ts';
import { cancelAttempt } from '../lesson-pass.ts';

/** Durable name of the release consumer (replicas share it). */
export const RELEASE_CONSUMER = 'lessons-releases';

/**
 * On `evt.courses.release_published`: the course's active release becomes the published one when
 * its activation is later than the recorded one (a re-activated older version too) and, in the same
 * transaction, every open attempt of the course on an older release moves to the new one when its
 * lesson's quiz did not change, or is cancelled (quiz_changed, lesson_removed). An attempt that
 * starts on the old release after this commit is caught by its first answer (attempt_outdated).
 */
export function startReleaseConsumer(
  deps: LessonsDeps,
  nc: NatsConnection,
  metrics?: Registry,
): Promise<RunningConsumer> {
  return startEventConsumer({
    nc,
    prefix: deps.bus.prefix,
    durable: RELEASE_CONSUMER,
    db: deps.db,
    log: deps.log,
    metrics,
    maxAttempts: deps.config.CONSUMER_MAX_ATTEMPTS,
    retryDelayMs: deps.config.CONSUMER_RETRY_MS,
    on: {
      async 'courses.release_published'(trx, p) {
        if (!(await deps.releaseRows.advance(trx, p.course, p.release, p.version, p.activation))) return;
        for (const attempt of await deps.attempts.openOutdated(trx, p.course, p.release)) {
          const fate = attemptFate(p.lessons, attempt.lesson_key);
          if (fate.action === 'move') await deps.attempts.moveTo(trx, attempt.id, p.release);
          else await cancelAttempt(trx, deps, attempt, fate.reason, false);
        }
      },
    },
  });
}
