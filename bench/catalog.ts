// The bench student's world: a catalog of course cards fed through the events stream, as the
// courses service publishes them, and some of those courses assigned or grouped in programs.
import { randomUUID } from 'node:crypto';
import { COURSE_CARD_CHANGED } from '@studium/contracts';
import { ensureStream, streamNames } from '@studium/platform';
import type { Kysely } from 'kysely';
import { headers, type NatsConnection } from 'nats';
import type { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';

/** Course id of the i-th bench course. */
export const benchCourse = (i: number) => `course-${String(i).padStart(3, '0')}`;

/** A card of `evt.courses.course_card_changed`: every tenth course is an announcement. */
function card(i: number) {
  const upcoming = i % 10 === 0;
  const course = benchCourse(i);
  return {
    course,
    revision: 1,
    course_key: upcoming ? null : course,
    title: `Курс номер ${i}`,
    summary: `Краткое описание курса номер ${i} для карточки каталога`,
    description: 'Полное описание',
    status: upcoming ? 'upcoming' : 'published',
    objectives: upcoming ? ['Цель один', 'Цель два', 'Цель три'] : [],
    release: upcoming ? null : `r-${i}`,
    version: upcoming ? null : 1,
    lessons: upcoming
      ? []
      : Array.from({ length: 8 }, (_, n) => ({
          id: `${course}-l${n}`,
          key: `l${n}`,
          title: `Урок ${n}`,
          chapter: 'Глава',
        })),
    at: new Date().toISOString(),
  };
}

/**
 * Publishes `courses` course cards on the events stream (the envelope the outbox relay writes),
 * opens them to `org`, and waits until the running enrollment service has consumed them all.
 */
export async function seedCatalog(opts: {
  nc: NatsConnection;
  prefix: string;
  db: Kysely<EnrollmentDb>;
  admin: EnrollmentAdmin;
  org: string;
  courses: number;
}): Promise<void> {
  await ensureStream(opts.nc, opts.prefix);
  const js = opts.nc.jetstream();
  const subject = streamNames(opts.prefix).subject(COURSE_CARD_CHANGED);
  for (let i = 0; i < opts.courses; i++) {
    const data = card(i);
    const envelope = { id: randomUUID(), type: COURSE_CARD_CHANGED, occurred_at: data.at, data };
    const h = headers();
    h.set('Nats-Msg-Id', envelope.id);
    await js.publish(subject, JSON.stringify(envelope), { headers: h });
    await opts.admin.allowCourse(opts.org, data.course);
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { n } = await opts.db
      .selectFrom('catalog')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(n) >= opts.courses) return;
    if (Date.now() > deadline) throw new Error(`enrollment consumed ${n} of ${opts.courses} course cards`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Gives the student courses of their own: `assigned` assignments in `org` (every other one
 * mandatory), and three ordered programs of five catalog courses each that they are a member of.
 */
export async function seedStudent(admin: EnrollmentAdmin, org: string, user: string, assigned: number) {
  for (let i = 1; i <= assigned; i++) {
    await admin.assignCourse(org, user, benchCourse(i), { mandatory: i % 2 === 0 });
  }
  for (let p = 0; p < 3; p++) {
    const courses = [0, 1, 2, 3, 4].map((k) => benchCourse(100 + p * 5 + k));
    await admin.saveProgram(`p${p}`, `Программа ${p}`, true, courses);
    await admin.addProgramMember(`p${p}`, user);
  }
}
