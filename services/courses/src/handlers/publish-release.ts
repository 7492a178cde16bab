import { publishRelease, Release, refuse } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { CoursesDb } from '../db.ts';
import { releaseProblems } from '../domain/release-checks.ts';
import { publishRelease as publish } from '../release-publisher.ts';
import { transaction } from '../store.ts';

/**
 * courses.publish_release: the pipeline CLI publishes a built release. It is an internal
 * operation (the CLI talks to NATS directly, not through the edge): `publisher` names the author.
 */
export function publishReleaseHandler(db: Kysely<CoursesDb>) {
  return endpoint(publishRelease, async (args) => {
    const parsed = Release.safeParse(args.release);
    const problems = parsed.success
      ? releaseProblems(parsed.data)
      : parsed.error.issues.map((i) => `${i.path.join('.') || '(релиз)'}: ${i.message}`);
    if (!parsed.success || problems.length) {
      return refuse('release_invalid', 'Релиз не прошёл проверку: поправьте карту курса и соберите релиз заново', {
        problems,
      });
    }
    return transaction(db, (s) => publish(s, parsed.data, args));
  });
}
