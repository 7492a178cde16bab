import { mailDelivered, mailDeliveryState, notify_when_released, notifySubscribers } from '@studium/contracts';
import type { Failure } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseMailQueueName } from '../src/app.ts';
import { card, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

// Each mail_outbox row is one recipient's delivery: open until the mailer reports the SMTP
// server's answer, and driven again from the database when its BullMQ job ends without one.
let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;
let queue: Queue;
const ANN = 'release-mail:soon:ann@t';
const BOB = 'release-mail:soon:bob@t';

beforeAll(async () => {
  env = await createTestEnv('mail-deliveries');
  svc = await startEnrollmentService(env, { MAIL_REDRIVE_AFTER_MS: '300', MAIL_RELAY_INTERVAL_MS: '100' });
  queue = new Queue(releaseMailQueueName(env.prefix), { connection: { url: env.redisUrl } });
  await seedCards(env, svc.db, [card('soon', { status: 'upcoming' })]);
  for (const user of ['ann@t', 'bob@t']) {
    await svc.admin.upsertUser(user, user, ['Student']);
    expect((await env.bus.request(notify_when_released, student(user), { course: 'soon' })).ok).toBe(true);
  }
  const args = { course: 'soon', title: 'Курс soon', summary: '' };
  expect(await env.bus.request(notifySubscribers, null, args)).toEqual({ ok: true, data: { notified: 2 } });
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await svc?.close();
  await env?.cleanup();
});

const state = (delivery: string) => env.bus.request(mailDeliveryState, null, { delivery });

describe('release e-mail deliveries', () => {
  it('are pending until the mailer reports the server accepted them, and closed once', async () => {
    expect(await state(ANN)).toEqual({ ok: true, data: { state: 'pending' } });
    expect(await state('release-mail:soon:nobody@t')).toEqual({ ok: true, data: { state: 'unknown' } });
    const sent = { delivery: ANN, outcome: 'sent' as const };
    expect(await env.bus.request(mailDelivered, null, sent)).toEqual({ ok: true, data: { recorded: true } });
    // A resend after a crash in the window reports again: nothing changes, and it is told so.
    expect(await env.bus.request(mailDelivered, null, sent)).toEqual({ ok: true, data: { recorded: false } });
    expect(await env.bus.request(mailDelivered, null, { delivery: ANN, outcome: 'rejected', detail: '550' })).toEqual({
      ok: true,
      data: { recorded: false },
    });
    expect(await state(ANN)).toEqual({ ok: true, data: { state: 'sent' } });
  });

  it('refuses delivery ids and details past their bounds, changing nothing', async () => {
    const huge = 'x'.repeat(601);
    await expect(state(huge)).rejects.toMatchObject({ status: 417 } satisfies Partial<Failure>);
    await expect(
      env.bus.request(mailDelivered, null, { delivery: BOB, outcome: 'sent', detail: 'y'.repeat(501) }),
    ).rejects.toMatchObject({ status: 417 });
    await expect(
      env.bus.request(mailDelivered, null, { delivery: BOB, outcome: 'lost' as 'sent' }),
    ).rejects.toMatchObject({ status: 417 });
    expect(await state(BOB)).toEqual({ ok: true, data: { state: 'pending' } });
  });

  it('enqueues an open delivery again under a new job id once its job failed, with the same delivery', async () => {
    const job = await eventually(async () => {
      const j = await queue.getJob(BOB);
      if (!j) throw new Error('not queued yet');
      return j;
    });
    // No worker runs here: the job is alive (waiting), so nothing is re-driven however old it is.
    await new Promise((r) => setTimeout(r, 800));
    expect(await queue.getJob(`${BOB}#1`)).toBeUndefined();
    // The job ends without a report (as after its stalls or its attempts ran out): a worker that
    // fails it for good, not the mailer (whose own crash test is mail-crash.e2e.test.ts).
    const failing = new Worker(
      queue.name,
      async (j) => {
        // Only the first job fails for good; a re-drive it might take is only retried (stays alive).
        if (j.id === BOB) throw new UnrecoverableError('job stalled more than allowable limit');
        throw new Error('not now');
      },
      { connection: { url: env.redisUrl } },
    );
    await eventually(async () => expect(await job.getState()).toBe('failed'));
    await failing.close();
    const again = await eventually(async () => {
      const j = await queue.getJob(`${BOB}#1`);
      if (!j) throw new Error('not re-driven yet');
      return j;
    });
    expect(again.data).toMatchObject({ to: 'bob@t', delivery: BOB });
    // The job is enqueued before the re-drive's transaction commits (its id covers a crash in
    // between), so the row's count may show a moment after the job does.
    await eventually(async () => {
      const row = await svc.db
        .selectFrom('mail_outbox')
        .select(['redrives', 'outcome'])
        .where('job_id', '=', BOB)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ redrives: 1, outcome: null });
    });
    // A closed delivery is never re-driven (ann@t was reported sent and has no job besides its first).
    expect(await queue.getJob(`${ANN}#1`)).toBeUndefined();
  });
});
