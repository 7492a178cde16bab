import { publishRelease, Release } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { releaseProblems } from '../domain/release-checks.ts';
import { releaseInvalid } from '../refusals.ts';
import { publishRelease as publish } from '../release-publisher.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * courses.publish_release: the pipeline CLI publishes a built release. It is an internal
 * operation (the CLI talks to NATS directly, not through the edge): `publisher` names the author.
 */
export function publishReleaseHandler({ transaction }: CoursesDeps) {
  return endpoint(publishRelease, async (args) => {
    const parsed = Release.safeParse(args.release);
    const problems = parsed.success
      ? releaseProblems(parsed.data)
      : parsed.error.issues.map((i) => `${i.path.join('.') || '(релиз)'}: ${i.message}`);
    if (!parsed.success || problems.length) return releaseInvalid(problems);
    return transaction((s) => publish(s, parsed.data, args));
  });
}
