import { randomUUID } from 'node:crypto';
import { events } from '@studium/contracts';
import { ensureStream, listDeadLetters, streamNames } from '@studium/platform';
import { createTestEnv, eventually, producerOf, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCourses } from '../../../test/support/courses.ts';
import { SESSIONS_CONSUMER } from '../src/handlers/session-started.ts';
import { startSession } from './sessions.ts';

let env: TestEnv;
let courses: Awaited<ReturnType<typeof startCourses>>;

beforeAll(async () => {
  env = await createTestEnv('courses-sessions-consumer');
  courses = await startCourses(env);
});

afterAll(async () => {
  await courses?.close();
  await env?.cleanup();
});

describe('the consumer of lesson sessions', () => {
  it('parks a malformed session_started in dead_letters with the reason and goes on with the next event', async () => {
    const subject = events['lessons.session_started'].subject;
    const id = randomUUID();
    // A publisher bug: no lesson_key, no space.
    const envelope = {
      id,
      type: subject,
      occurred_at: new Date().toISOString(),
      data: { user: 'anna@test', course: 'crs_x', session: 'ses_broken', at: new Date().toISOString() },
    };
    await ensureStream(await env.as('operator'), env.prefix);
    await (await env.as(producerOf(subject)))
      .jetstream()
      .publish(streamNames(env.prefix).subject(subject), JSON.stringify(envelope), { msgID: id });
    // The next event is applied (startSession waits until courses has it).
    await startSession(env, courses.database.db, {
      user: 'anna@test',
      course: 'crs_x',
      lessonKey: 'l-1',
      release: 'rel_x',
      session: 'ses_good',
    });
    const parked = await eventually(async () => {
      const rows = (await listDeadLetters(courses.database.pool)).filter((d) => d.msg_id === id);
      expect(rows).toHaveLength(1);
      return rows[0];
    });
    expect(parked).toMatchObject({ consumer: SESSIONS_CONSUMER, attempts: 1 });
    expect(parked.error).toContain('malformed lessons.session_started payload');
    expect(parked.error).toContain('lesson_key');
    const sessions = await courses.database.db.selectFrom('lesson_sessions').select('session').execute();
    expect(sessions.map((s) => s.session)).toEqual(['ses_good']);
  });
});
