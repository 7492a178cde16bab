import { events, type LessonPassed } from '@studium/contracts';
import {
  durablePlan,
  filtersManySubjects,
  migrate,
  openDatabase,
  PLATFORM_MIGRATIONS,
  streamNames,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { PROGRESS_CONSUMER } from '../services/enrollment/src/handlers/lesson-passed.ts';
import { publishEvents } from '../services/enrollment/test/support/cards.ts';
import { type ServiceProcess, spawnService } from './support/process.ts';

// Two enrollment replicas share the progress consumer; one is frozen while events arrive (so it
// holds some, unacknowledged) and then SIGKILLed. JetStream's short ack wait hands its events to
// the other replica: their effects land within seconds, not after the old 30 s.
const USERS = Array.from({ length: 40 }, (_, i) => `u${String(i).padStart(2, '0')}@t`);
let env: TestEnv;
let database: ReturnType<typeof openDatabase<EnrollmentDb>>;
const replicas: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv('consumer-takeover');
  database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  for (const user of USERS) await admin.upsertUser(user, user, ['Student']);
  await database.db
    .insertInto('enrollments')
    .values(
      USERS.map((user_id) => ({
        user_id,
        course: 'first',
        space: 'personal',
        self_enrolled: true,
        mandatory: null,
        deadline: null,
        completed_at: null,
        progress_at: null,
      })),
    )
    .execute();
  for (let i = 0; i < 2; i++) {
    const replica = spawnService('services/enrollment/src/main.ts', {
      DATABASE_URL: env.databaseUrl,
      SUBJECT_PREFIX: env.prefix,
      ...env.natsEnv('enrollment'),
      REDIS_URL: env.redisUrl,
      DB_POOL_MAX: '3',
    });
    replicas.push(replica);
    await replica.waitFor('"msg":"service started"', 90_000);
  }
}, 180_000);

afterAll(async () => {
  for (const r of replicas) {
    r.child.kill('SIGCONT');
    await r.kill();
  }
  await database?.close();
  await env?.cleanup();
}, 60_000);

function passed(user: string): LessonPassed {
  return {
    user,
    course: 'first',
    lesson: 'first.l1',
    lesson_key: 'l1',
    session: `ses_${user}`,
    space: 'personal',
    organization: null,
    at: '2026-01-01T00:00:00Z',
    release: 'first-r1',
    version: 1,
    via: 'complete',
    late: false,
    lessons_passed: 1,
    lessons_total: 3,
    course_completed: false,
  };
}

const progressed = async () =>
  Number(
    (
      await database.db
        .selectFrom('enrollments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('lessons_done', '=', 1)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('events held by a killed consumer', () => {
  it('are applied by the other replica within 5 s of the kill', async () => {
    const [victim] = replicas;
    victim.child.kill('SIGSTOP');
    await publishEvents(env, events['lessons.lesson_passed'].subject, USERS.map(passed));
    // The live replica applies its share; the frozen one holds the rest, delivered and unacknowledged.
    const jsm = await (await env.as('operator')).jetstreamManager();
    const stream = streamNames(env.prefix).stream;
    await eventually(async () => expect(await progressed()).toBeGreaterThan(0));
    // The durable that reads lesson_passed: the consumer's own, or on a server before NATS 2.10 its
    // durable of that subject (it also reads lesson_failed).
    const subjects = [events['lessons.lesson_passed'].subject, events['lessons.lesson_failed'].subject];
    const durable = durablePlan(PROGRESS_CONSUMER, subjects, filtersManySubjects(env.nc)).find((d) =>
      d.subjects.includes(events['lessons.lesson_passed'].subject),
    )?.name as string;
    const held = await eventually(async () => {
      const info = await jsm.consumers.info(stream, durable);
      expect(info.num_ack_pending).toBeGreaterThan(0);
      expect(info.num_pending).toBe(0);
      return info.num_ack_pending;
    });
    expect(await progressed()).toBeLessThan(USERS.length);
    const killedAt = Date.now();
    expect((await victim.kill('SIGKILL')).signal).toBe('SIGKILL');
    await eventually(async () => expect(await progressed()).toBe(USERS.length), 10_000, 20);
    const tookMs = Date.now() - killedAt;
    console.log(
      `consumer takeover: ${held} events held by the killed replica, all applied ${tookMs} ms after the kill`,
    );
    expect(tookMs).toBeLessThan(5_000);
  }, 60_000);
});
