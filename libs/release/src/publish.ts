import { type OutputOf, publishRelease, type Release, type Reply } from '@studium/contracts';
import type { Bus } from '@studium/platform';

/** What publishing needs of a build: the release, its digest and the map's commit. */
export interface PublishInput {
  release: Release;
  digest: string;
  commit: string | null;
}

/** Who publishes, and optionally the announced course (id) the first release attaches to. */
export interface PublishOptions {
  publisher: string;
  attachTo?: string;
  timeoutMs?: number;
}

/** The courses service's answer to a publication. */
export type PublishOutcome = OutputOf<typeof publishRelease>;

/**
 * Sends a built release to the courses service (`courses.publish_release`, no principal: the
 * pipeline is not a user). Returns the reply; throws Failure when the service does not answer.
 */
export async function publishBuilt(
  bus: Bus,
  built: PublishInput,
  opts: PublishOptions,
): Promise<Reply<PublishOutcome>> {
  const args = {
    release: built.release as unknown as Record<string, unknown>,
    digest: built.digest,
    commit: built.commit,
    publisher: opts.publisher,
    ...(opts.attachTo ? { attach_to: opts.attachTo } : {}),
  };
  return bus.request(publishRelease, null, args, { timeoutMs: opts.timeoutMs ?? 30_000 });
}
