import { resolve } from 'node:path';
import {
  announce_course,
  create_course,
  list_courses,
  type Principal,
  publish_course,
  type Reply,
} from '@studium/contracts';
import { type Bus, Failure } from '@studium/platform';
import { buildFromDir, loadAnnouncements, loadPrograms, publishBuilt } from '@studium/release';
import type { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';

const CURATOR: Principal = {
  user: 'curator@demo.studium',
  full_name: 'Вера Кузнецова',
  roles: ['Course Creator'],
  scope: 'write',
  space: 'personal',
};

function unwrap<T>(reply: Reply<T>, what: string): T {
  if (!reply.ok) throw new Error(`${what}: ${reply.error.code} ${reply.error.message}`);
  return reply.data;
}

/** Retries while the service is still starting (no responders), for up to a minute. */
async function whenServing<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof Failure) || err.status !== 503 || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * Publishes the demo courses the way a curator would (pipeline → publish_course), announces the
 * upcoming one, chains the two published ones into an ordered program, opens everything to the
 * demo organization and assigns the first course to the demo student. Idempotent: a second run
 * finds the same digests and the existing announcement.
 */
export async function publishDemoCourses(bus: Bus, admin: EnrollmentAdmin, examples: string) {
  const byKey = new Map<string, string>();
  for (const map of ['negotiation-basics', 'negotiation-advanced']) {
    const built = await buildFromDir(resolve(examples, map));
    if (!built.ok) throw new Error(`${map}: the demo map is invalid (${built.errors.length} errors)`);
    const published = unwrap(
      await whenServing(() => publishBuilt(bus, built, { publisher: CURATOR.user })),
      `publish ${map}`,
    );
    unwrap(await bus.request(publish_course, CURATOR, { course: published.course }), `publish_course ${map}`);
    byKey.set(published.course_key, published.course);
  }
  const existing = unwrap(await bus.request(list_courses, CURATOR, {}), 'list_courses').courses;
  for (const a of await loadAnnouncements(resolve(examples, 'announcements.yaml'))) {
    let course = existing.find((c) => c.title === a.title && !c.course_key)?.course;
    if (!course) {
      course = unwrap(
        await bus.request(create_course, CURATOR, { title: a.title, summary: a.summary, description: a.description }),
        'create_course',
      ).course;
    }
    const upcoming = existing.find((c) => c.course === course)?.upcoming;
    if (!upcoming)
      unwrap(await bus.request(announce_course, CURATOR, { course, objectives: a.objectives }), 'announce');
    byKey.set(a.key, course);
  }
  for (const p of await loadPrograms(resolve(examples, 'programs.yaml'))) {
    await admin.saveProgram(
      p.key,
      p.title,
      p.ordered,
      p.courses.map((k) => byKey.get(k) ?? k),
    );
    await admin.addProgramMember(p.key, 'student@demo.studium');
  }
  for (const course of byKey.values()) await admin.allowCourse('acme', course);
  const first = byKey.get('negotiation-basics');
  if (first) {
    const deadline = new Date(Date.now() + 30 * 86_400_000).toISOString();
    await admin.assignCourse('acme', 'student@demo.studium', first, { mandatory: true, deadline });
  }
  return byKey;
}
