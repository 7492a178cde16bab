import {
  type CourseAccess,
  type OutputOf,
  type Principal,
  parseLessonId,
  type Refusal,
  type Release,
  type ReleaseLesson,
  releaseContent,
} from '@studium/contracts';
import { type AccessProjection, type Bus, type CallContext, Failure } from '@studium/platform';
import { lessonNotFound } from './refusals.ts';
import type { SubmissionRepository } from './repositories/submission.repository.ts';

type Content = OutputOf<typeof releaseContent>;
type Refused = { ok: false; error: Refusal };

/** The caller of a student tool (the edge always sends one). */
export function caller(ctx: CallContext): Principal {
  if (!ctx.principal) throw new Failure(401, 'no principal');
  return ctx.principal;
}

/** A lesson of the course's active release, with the access the student has to the course. */
export interface LessonInCourse {
  access: CourseAccess;
  release: Content;
  lesson: ReleaseLesson;
  course: string;
  key: string;
  id: string;
}

/**
 * What the homework tools ask the other contexts: the access check (enrollment) and release
 * content (courses). A named release is immutable and kept for good; the active release of a
 * course is trusted for a short TTL, so a new publication shows within it.
 */
export class CourseGateway {
  private readonly named = new Map<string, Content>();
  private readonly active = new Map<string, { at: number; content: Content }>();

  constructor(
    private readonly bus: Bus,
    private readonly submissions: SubmissionRepository,
    private readonly projection: AccessProjection,
    private readonly activeTtlMs: number,
  ) {}

  /** The access check with the space rules: explicit space, then the course's session space, then the selected one. */
  async access(principal: Principal, course: string, space: string | undefined): Promise<CourseAccess | Refused> {
    const user = principal.user;
    const courseSpace = space ? null : await this.submissions.courseSpace(user, course);
    // Decided from the access projection; a refusal is enrollment's own (AccessProjection.check).
    const reply = await this.projection.check(principal, { course, space: space ?? null, course_space: courseSpace });
    return reply.ok ? reply.data : reply;
  }

  /** The course's active release (or the named one). */
  async release(course: string, release?: string): Promise<Content | Refused> {
    if (release) {
      const kept = this.named.get(release);
      if (kept) return kept;
    } else {
      const kept = this.active.get(course);
      if (kept && Date.now() - kept.at < this.activeTtlMs) return kept.content;
    }
    const reply = await this.bus.request(releaseContent, null, release ? { course, release } : { course });
    if (!reply.ok) return reply;
    this.named.set(reply.data.release, reply.data);
    if (reply.data.active) this.active.set(course, { at: Date.now(), content: reply.data });
    if (this.named.size > NAMED_LIMIT) this.named.delete(this.named.keys().next().value as string);
    return reply.data;
  }

  /** A lesson by id, with access in the space: lesson_not_found when the id or key is unknown. */
  async lesson(principal: Principal, lessonId: string, space: string | undefined): Promise<LessonInCourse | Refused> {
    const parsed = parseLessonId(lessonId);
    if (!parsed) return lessonNotFound(lessonId);
    const access = await this.access(principal, parsed.course, space);
    if ('ok' in access) return access;
    const release = await this.release(parsed.course);
    if ('ok' in release) {
      if (release.error.code === 'course_not_found' || release.error.code === 'course_not_released') {
        return lessonNotFound(lessonId);
      }
      return release;
    }
    const lesson = findLesson(release.content, parsed.key);
    if (!lesson) return lessonNotFound(lessonId);
    return { access, release, lesson, course: parsed.course, key: parsed.key, id: lessonId };
  }
}

/** A lesson of a release by key. */
export function findLesson(content: Release, key: string): ReleaseLesson | undefined {
  for (const chapter of content.chapters) {
    const found = chapter.lessons.find((l) => l.key === key);
    if (found) return found;
  }
  return undefined;
}

/** Lesson keys of a release in course order. */
export function lessonOrder(content: Release): ReleaseLesson[] {
  return content.chapters.flatMap((c) => c.lessons);
}

/** Immutable releases kept in memory at most. */
const NAMED_LIMIT = 200;
