import { notify_when_released, notifySubscribers } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseMailQueueName } from '../src/app.ts';
import { card, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

// Nothing in Redis is the only copy: with Redis away, release e-mails wait in mail_outbox.
let env: TestEnv;
let queue: Queue;

beforeAll(async () => {
  env = await createTestEnv('mail-relay');
  queue = new Queue(releaseMailQueueName(env.prefix), { connection: { url: env.redisUrl } });
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await env?.cleanup();
});

describe('the mail relay', () => {
  it('keeps e-mails in the outbox while Redis is unreachable and relays them once it is back', async () => {
    const down = await startEnrollmentService(env, { REDIS_URL: 'redis://127.0.0.1:1' });
    await down.admin.upsertUser('ann@t', 'Анна', ['Student']);
    await seedCards(env, down.db, [card('soon', { status: 'upcoming' })]);
    expect((await env.bus.request(notify_when_released, student('ann@t'), { course: 'soon' })).ok).toBe(true);
    const args = { course: 'soon', title: 'Курс soon', summary: '' };
    expect(await env.bus.request(notifySubscribers, null, args)).toEqual({ ok: true, data: { notified: 1 } });
    await down.app.flush();
    const pending = () => down.db.selectFrom('mail_outbox').select('job_id').where('enqueued_at', 'is', null).execute();
    expect(await pending()).toEqual([{ job_id: 'release-mail:soon:ann@t' }]);
    await down.close();

    const up = await startEnrollmentService(env);
    await eventually(async () => expect(await queue.getJob('release-mail:soon:ann@t')).toBeDefined());
    await eventually(async () => {
      const rows = await up.db.selectFrom('mail_outbox').select('job_id').where('enqueued_at', 'is', null).execute();
      expect(rows).toEqual([]);
    });
    await up.close();
  });
});
