import { ok, type Release } from '@studium/contracts';
import { releaseWarnings } from '@studium/release';
import { newId } from './domain/ids.ts';
import { lessonChanges } from './domain/release-diff.ts';
import { lessonsOf } from './domain/release-index.ts';
import { courseKeyTaken, courseNotFound } from './refusals.ts';
import type { CourseRow } from './repositories/course.repository.ts';
import type { ReleaseMeta } from './repositories/release.repository.ts';
import { changeCourse, type Store } from './store.ts';

/** Where a release comes from besides its content. */
export interface Publication {
  digest: string;
  commit: string | null;
  publisher: string;
  attach_to?: string;
}

/**
 * Publishes a validated release in the caller's transaction. The course is found by the
 * release's course key (created on the first release), or is the announcement named by
 * `attach_to`. The same digest is no new version: when it is active nothing changes; when it is
 * an older version, that version becomes active again. Otherwise the next version becomes
 * active and the previous one keeps only its record. The card and curators come from the release.
 */
export async function publishRelease(s: Store, release: Release, p: Publication) {
  const found = await findCourse(s, release, p);
  if (!found.ok) return found;
  const course = found.data;
  const same = await s.releases.byDigest(course.id, p.digest);
  if (same?.active) return ok(result(course.id, release, same, false));
  const previous = await s.releases.active(course.id);
  await s.releases.retireActive(course.id);
  let record: ReleaseMeta;
  if (same) {
    await s.releases.reactivate(same.id, release);
    record = same;
  } else {
    record = {
      id: newId('rel'),
      course: course.id,
      version: (await s.releases.maxVersion(course.id)) + 1,
      digest: p.digest,
      commit: p.commit,
      document_key: release.document?.key ?? null,
      published_at: new Date().toISOString(),
      published_by: p.publisher,
      active: true,
      warnings: releaseWarnings(release),
    };
    await s.releases.insert({ ...record, content: release, lesson_count: lessonsOf(release).length });
  }
  const c = release.course;
  const row = await changeCourse(
    s,
    course.id,
    {
      course_key: c.key,
      title: c.title,
      summary: c.summary,
      description: c.description,
      promise: c.promise,
      ...(c.curators.length ? { instructors: c.curators } : {}),
    },
    { id: record.id, version: record.version, content: release },
  );
  await s.emit('courses.release_published', {
    course: row.id,
    course_key: c.key,
    release: record.id,
    version: record.version,
    activation: row.card_revision,
    digest: record.digest,
    commit: record.commit,
    first: !previous,
    lessons: lessonChanges(previous?.content ?? null, release),
    instructors: row.instructors,
    by: p.publisher,
    at: row.updated_at,
  });
  return ok(result(row.id, release, record, !same));
}

function result(course: string, release: Release, r: ReleaseMeta, created: boolean) {
  return {
    course,
    course_key: release.course.key,
    release: r.id,
    version: r.version,
    created,
    warnings: r.warnings,
  };
}

/** The course the release belongs to, locked; refusals for a bad attach_to. */
async function findCourse(s: Store, release: Release, p: Publication) {
  const key = release.course.key;
  if (p.attach_to) {
    const target = await s.courses.lock(p.attach_to);
    if (!target) return courseNotFound(p.attach_to);
    if (target.course_key !== null && target.course_key !== key) {
      return courseKeyTaken(target.id, key, { current_key: target.course_key });
    }
    const holder = target.course_key === null ? await s.courses.lockByKey(key) : undefined;
    if (holder) return courseKeyTaken(target.id, key, { holder: holder.id });
    return ok(target);
  }
  let course: CourseRow | undefined = await s.courses.lockByKey(key);
  if (!course) {
    await s.courses.insertKeyed({
      id: newId('crs'),
      course_key: key,
      title: release.course.title,
      summary: release.course.summary,
      description: release.course.description,
      promise: release.course.promise,
      created_by: p.publisher,
      instructors: [p.publisher],
    });
    course = await s.courses.lockByKey(key);
  }
  if (!course) throw new Error(`course ${key} vanished while publishing`);
  return ok(course);
}
