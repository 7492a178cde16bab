import { randomUUID } from 'node:crypto';
import { events, type LessonPassed, type SessionStarted } from '@studium/contracts';
import { type EventEnvelope, ensureStream, streamNames } from '@studium/platform';
import { producerOf, type TestEnv } from '@studium/testing';
import { headers } from 'nats';

/** Publishes an event on the stream exactly as a producer's outbox relay does (envelope, Nats-Msg-Id = id). */
export async function publishEvent(env: TestEnv, subject: string, data: { at: string }, id: string = randomUUID()) {
  // As the producer's own NATS user, as its outbox relay publishes.
  const nc = await env.as(producerOf(subject));
  await ensureStream(nc, env.prefix);
  const envelope: EventEnvelope = { id, type: subject, occurred_at: data.at, data };
  const h = headers();
  h.set('Nats-Msg-Id', id);
  await nc.jetstream().publish(streamNames(env.prefix).subject(subject), JSON.stringify(envelope), { headers: h });
  return envelope;
}

/** lessons.lesson_passed for a lesson of the test course, as the lessons service would publish it. */
export function lessonPassed(
  s: { course: string; release: string },
  user: string,
  key: string,
  space: string,
  at = new Date().toISOString(),
): LessonPassed {
  return {
    user,
    course: s.course,
    lesson: `${s.course}.${key}`,
    lesson_key: key,
    session: randomUUID(),
    space,
    organization: space === 'personal' ? null : space,
    at,
    release: s.release,
    version: 1,
    via: 'complete',
    late: false,
    lessons_passed: 1,
    lessons_total: 4,
    course_completed: false,
  };
}

/** lessons.session_started in a space. */
export function sessionStarted(
  s: { course: string; release: string },
  user: string,
  key: string,
  space: string,
): SessionStarted {
  return {
    user,
    course: s.course,
    lesson: `${s.course}.${key}`,
    lesson_key: key,
    session: randomUUID(),
    space,
    organization: space === 'personal' ? null : space,
    at: new Date().toISOString(),
    release: s.release,
    version: 1,
    channel: 'agent',
    opening: 'new_lesson',
    objectives: [],
  };
}

export const LESSON_PASSED = events['lessons.lesson_passed'].subject;
export const SESSION_STARTED = events['lessons.session_started'].subject;
