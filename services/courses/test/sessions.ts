import { randomUUID } from 'node:crypto';
import { events, lessonId, type SessionStarted } from '@studium/contracts';
import { type EventEnvelope, ensureStream, streamNames } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import type { Kysely } from 'kysely';
import type { CoursesDb } from '../src/db.ts';

/**
 * Announces a lesson session on the test's event stream exactly as the lessons service does on
 * start_lesson (`evt.lessons.session_started`), and waits until courses has taken it in.
 */
export async function startSession(
  env: TestEnv,
  db: Kysely<CoursesDb>,
  s: { user: string; course: string; lessonKey: string; release: string; session?: string; space?: string },
): Promise<string> {
  const session = s.session ?? `ses_${randomUUID().slice(0, 8)}`;
  const data: SessionStarted = {
    user: s.user,
    course: s.course,
    lesson: lessonId(s.course, s.lessonKey),
    lesson_key: s.lessonKey,
    session,
    space: s.space ?? 'personal',
    organization: null,
    at: new Date().toISOString(),
    release: s.release,
    version: 1,
    channel: 'agent',
    opening: 'new_lesson',
    objectives: [],
  };
  const subject = events['lessons.session_started'].subject;
  const envelope: EventEnvelope<SessionStarted> = { id: randomUUID(), type: subject, occurred_at: data.at, data };
  const nc = await env.as('lessons');
  await ensureStream(nc, env.prefix);
  await nc.jetstream().publish(streamNames(env.prefix).subject(subject), JSON.stringify(envelope), {
    msgID: envelope.id,
  });
  for (let i = 0; i < 100; i++) {
    const row = await db
      .selectFrom('lesson_sessions')
      .select('session')
      .where('session', '=', session)
      .executeTakeFirst();
    if (row) return session;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`courses never saw session ${session}`);
}
