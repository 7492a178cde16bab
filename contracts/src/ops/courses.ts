import { z } from 'zod';
import { Release } from '../release.ts';
import { defineOperation } from '../tool.ts';

/** A warning of a release's checks (spec: empty student text, question without explanation). */
export const ReleaseWarning = z.object({ code: z.string(), place: z.string(), message: z.string() });
export type ReleaseWarning = z.infer<typeof ReleaseWarning>;

/**
 * Publishes a built release (the pipeline CLI → courses). The same digest for the same course is
 * no new version (`created: false`). `attach_to` binds the first release of a course to an
 * existing announcement (create_course + announce_course), keeping its subscribers.
 * Refusals: `release_invalid` (the content fails the release schema), `course_key_taken`
 * (attach_to names a course that already has another key), `course_not_found` (attach_to).
 */
export const publishRelease = defineOperation({
  subject: 'courses.publish_release',
  input: z.object({
    /** The canonical release JSON (see docs/course-map.md). */
    release: z.record(z.string(), z.unknown()),
    digest: z.string(),
    commit: z.string().nullable(),
    publisher: z.string(),
    attach_to: z.string().optional(),
  }),
  output: z.object({
    course: z.string(),
    course_key: z.string(),
    release: z.string(),
    version: z.number().int(),
    created: z.boolean(),
    warnings: z.array(ReleaseWarning),
  }),
});

/**
 * The content of a release (lessons, homework → courses). Without `release`: the course's active
 * release. Releases are immutable, so a caller may keep the content by release id for as long as
 * it likes; the active release changes only with `evt.courses.release_published` (and
 * `evt.courses.course_unpublished`). Refusals: `course_not_found`, `course_not_released` (no active
 * release), `release_not_found` (the named release is not one of this course's).
 */
export const releaseContent = defineOperation({
  subject: 'courses.release_content',
  input: z.object({ course: z.string(), release: z.string().optional() }),
  output: z.object({
    course: z.string(),
    release: z.string(),
    version: z.number().int(),
    digest: z.string(),
    /** Whether this is the course's active release now. */
    active: z.boolean(),
    /** The course's card revision when read: at least the activation of the active release (see ReleasePublished). */
    activation: z.number().int().optional(),
    published_at: z.string(),
    /** The canonical release JSON (see `Release` in release.ts). */
    content: Release,
  }),
});
