import { ok, type Release, type ReleaseLesson, type Reply, releaseContent } from '@studium/contracts';
import type { Bus } from '@studium/platform';
import type { ReleaseRepository } from './repositories/release.repository.ts';

/** A lesson of a release with its place in the course. */
export interface PlacedLesson {
  lesson: ReleaseLesson;
  chapter: { key: string; title: string };
  /** 0-based position in course order. */
  index: number;
}

/** A release's content with its lessons indexed by key. */
export interface LoadedRelease {
  course: string;
  release: string;
  version: number;
  content: Release;
  /** Lesson keys in course order. */
  order: string[];
  lessons: Map<string, PlacedLesson>;
}

function index(course: string, release: string, version: number, content: Release): LoadedRelease {
  const lessons = new Map<string, PlacedLesson>();
  const order: string[] = [];
  for (const ch of content.chapters) {
    for (const lesson of ch.lessons) {
      lessons.set(lesson.key, { lesson, chapter: { key: ch.key, title: ch.title }, index: order.length });
      order.push(lesson.key);
    }
  }
  return { course, release, version, content, order, lessons };
}

/**
 * Release contents from courses, kept by release id (releases are immutable), and the active
 * release of each course as the lessons schema records it (the release_published consumer moves
 * it forward; the first one is learned from courses).
 */
export class Releases {
  private readonly byId = new Map<string, LoadedRelease>();

  constructor(
    private readonly bus: Bus,
    private readonly repo: ReleaseRepository,
  ) {}

  /** A named release of a course. */
  async get(course: string, release: string): Promise<Reply<LoadedRelease>> {
    const kept = this.byId.get(release);
    if (kept) return ok(kept);
    const reply = await this.bus.request(releaseContent, null, { course, release });
    if (!reply.ok) return reply;
    return ok(this.keep(reply.data));
  }

  /** The course's active release (refusals course_not_found, course_not_released from courses). */
  async active(course: string): Promise<Reply<LoadedRelease>> {
    const row = await this.repo.find(course);
    return this.activeFrom(course, row?.release ?? null);
  }

  /** {@link active} with the active_releases row already read (null: none yet, learned from courses). */
  async activeFrom(course: string, recorded: string | null): Promise<Reply<LoadedRelease>> {
    if (recorded !== null) return this.get(course, recorded);
    const reply = await this.bus.request(releaseContent, null, { course });
    if (!reply.ok) return reply;
    const loaded = this.keep(reply.data);
    await this.repo.seed(course, loaded.release, loaded.version, reply.data.activation ?? 0);
    // Another writer (the consumer) may have set a newer one meanwhile.
    const now = await this.repo.find(course);
    return now && now.release !== loaded.release ? this.get(course, now.release) : ok(loaded);
  }

  private keep(d: { course: string; release: string; version: number; content: Release }): LoadedRelease {
    const loaded = index(d.course, d.release, d.version, d.content);
    if (this.byId.size > 500) this.byId.clear();
    this.byId.set(d.release, loaded);
    return loaded;
  }
}
