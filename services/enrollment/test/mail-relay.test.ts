import { notify_when_released, notifySubscribers } from '@studium/contracts';
import { openDatabase } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseMailQueueName } from '../src/app.ts';
import type { EnrollmentDb } from '../src/db.ts';
import { MailOutboxRepository } from '../src/repositories/mail-outbox.repository.ts';
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

  it('holds no connection while Redis is awaited, and two replicas on the same rows make one job each', async () => {
    // A service with Redis away writes the outbox and relays nothing (its passes are skipped).
    const down = await startEnrollmentService(env, { REDIS_URL: 'redis://127.0.0.1:1' });
    await seedCards(env, down.db, [card('later', { status: 'upcoming' })]);
    for (const user of ['cat@t', 'dan@t']) {
      await down.admin.upsertUser(user, user, ['Student']);
      expect((await env.bus.request(notify_when_released, student(user), { course: 'later' })).ok).toBe(true);
    }
    const args = { course: 'later', title: 'Курс later', summary: '' };
    expect(await env.bus.request(notifySubscribers, null, args)).toEqual({ ok: true, data: { notified: 2 } });
    await down.close();

    // Two replicas' relays, each on a pool of ONE connection. Each waits inside its hand-over
    // until the other has read the same rows and a plain query has gone through its own pool:
    // a relay holding its connection (a transaction open across the Redis call) would wait forever.
    const replica = () => {
      const database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 1);
      return { database, mails: new MailOutboxRepository(database.db) };
    };
    const [a, b] = [replica(), replica()];
    let read = 0;
    let bothRead: () => void = () => {};
    const met = new Promise<void>((r) => {
      bothRead = r;
    });
    const relay = (r: typeof a) =>
      r.mails.relayBatch(100, async (rows) => {
        if (++read === 2) bothRead();
        await met;
        await r.database.db.selectFrom('mail_outbox').select('id').limit(1).execute();
        await queue.addBulk(
          rows.map((row) => ({ name: 'release-mail', data: row.payload, opts: { jobId: row.job_id } })),
        );
      });
    const passes = await Promise.race([
      Promise.all([relay(a), relay(b)]),
      new Promise((_, reject) => setTimeout(() => reject(new Error('a relay held its connection')), 5000)),
    ]);
    expect(passes).toEqual([2, 2]);
    const ids = ['release-mail:later:cat@t', 'release-mail:later:dan@t'];
    const jobs = (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).filter((j) => ids.includes(j.id ?? ''));
    expect(jobs.map((j) => j.id).sort()).toEqual(ids);
    expect(await a.mails.pending()).toBe(0);
    await Promise.all([a.database.close(), b.database.close()]);
  });
});
