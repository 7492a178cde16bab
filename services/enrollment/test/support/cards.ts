import { randomUUID } from 'node:crypto';
import { COURSE_CARD_CHANGED, type CourseCardChanged } from '@studium/contracts';
import { type EventEnvelope, ensureStream, streamNames } from '@studium/platform';
import { eventually, producerOf, type TestEnv } from '@studium/testing';
import type { Kysely } from 'kysely';
import { headers } from 'nats';
import type { EnrollmentDb } from '../../src/db.ts';

const revisions = new Map<string, number>();

/** A course card with defaults; each call for a course gets the next revision unless one is given. */
export function card(course: string, over: Partial<CourseCardChanged> = {}): CourseCardChanged {
  const revision = over.revision ?? (revisions.get(course) ?? 0) + 1;
  revisions.set(course, Math.max(revision, revisions.get(course) ?? 0));
  const status = over.status ?? 'published';
  const lessons =
    over.lessons ??
    (status === 'published'
      ? [1, 2, 3].map((n) => ({ id: `${course}-l${n}`, key: `l${n}`, title: `Урок ${n}`, chapter: 'Глава 1' }))
      : []);
  return {
    course,
    revision,
    course_key: status === 'published' ? course : null,
    title: `Курс ${course}`,
    summary: `Кратко о курсе ${course}`,
    description: `Полное описание курса ${course}`,
    status,
    objectives: status === 'upcoming' ? ['Первая цель', 'Вторая цель'] : [],
    release: status === 'published' ? `${course}-r1` : null,
    version: status === 'published' ? 1 : null,
    lessons,
    at: new Date().toISOString(),
    ...over,
  };
}

/**
 * Publishes cards to the events stream exactly as the courses service's outbox relay does (the
 * platform envelope, Nats-Msg-Id = event id); returns the envelopes.
 */
export async function publishCards(env: TestEnv, cards: CourseCardChanged[]): Promise<EventEnvelope[]> {
  return publishEvents(env, COURSE_CARD_CHANGED, cards);
}

/** Publishes events of one subject as a producer's outbox relay does (envelope, Nats-Msg-Id = id). */
export async function publishEvents<T extends { at: string }>(
  env: TestEnv,
  type: string,
  payloads: T[],
): Promise<EventEnvelope[]> {
  // As the producer's own NATS user, as its outbox relay publishes.
  await ensureStream(await env.as(producerOf(type)), env.prefix);
  const subject = streamNames(env.prefix).subject(type);
  const sent: EventEnvelope[] = [];
  for (const data of payloads) {
    const envelope: EventEnvelope = { id: randomUUID(), type, occurred_at: data.at, data };
    sent.push(await publishEnvelope(env, type, subject, envelope));
  }
  return sent;
}

/** Publishes one envelope with its id as Nats-Msg-Id. */
async function publishEnvelope(
  env: TestEnv,
  type: string,
  subject: string,
  envelope: EventEnvelope,
): Promise<EventEnvelope> {
  const h = headers();
  h.set('Nats-Msg-Id', envelope.id);
  await (await env.as(producerOf(type))).jetstream().publish(subject, JSON.stringify(envelope), { headers: h });
  return envelope;
}

/** Publishes cards and waits until the catalog holds each one's revision (or a newer one). */
export async function seedCards(env: TestEnv, db: Kysely<EnrollmentDb>, cards: CourseCardChanged[]): Promise<void> {
  await publishCards(env, cards);
  await eventually(async () => {
    for (const c of cards) {
      const row = await db.selectFrom('catalog').select('revision').where('course', '=', c.course).executeTakeFirst();
      if (!row || row.revision < c.revision) throw new Error(`card ${c.course}@${c.revision} not in the catalog yet`);
    }
  });
}
