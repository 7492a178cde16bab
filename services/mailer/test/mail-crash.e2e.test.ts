import { notify_when_released, notifySubscribers } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtpSink } from '../../../test/support/mailer.ts';
import { type ServiceProcess, spawnService } from '../../../test/support/process.ts';
import { card, seedCards } from '../../enrollment/test/support/cards.ts';
import { startEnrollmentService, student } from '../../enrollment/test/support/service.ts';
import { releaseMailQueueName } from '../src/config.ts';

// The release e-mail path under SIGKILL: the mailer is a real process, killed twice while one
// job is in the middle of its SMTP conversation. Enrollment's delivery rows are the truth, so the
// job that stalls out of BullMQ is driven again from them and every subscriber gets the e-mail.
const SUBSCRIBERS = Array.from({ length: 36 }, (_, i) => `s${String(i).padStart(2, '0')}@t`);
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollmentService>>;
let sink: SmtpSink;
let queue: Queue;
const mailers: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv('mail-crash');
  // Re-drive quickly: an open delivery whose job is gone is enqueued again after 2 s.
  enrollment = await startEnrollmentService(env, { MAIL_REDRIVE_AFTER_MS: '2000', MAIL_RELAY_INTERVAL_MS: '300' });
  // Each message waits 150 ms between its data and the server's 250: kills land inside a job.
  sink = await startSmtpSink({ acceptDelayMs: 150 });
  queue = new Queue(releaseMailQueueName(env.prefix), { connection: { url: env.redisUrl } });
  await seedCards(env, enrollment.db, [card('soon', { status: 'upcoming' })]);
  for (const user of SUBSCRIBERS) {
    await enrollment.admin.upsertUser(user, `Ученик ${user}`, ['Student']);
    expect((await env.bus.request(notify_when_released, student(user), { course: 'soon' })).ok).toBe(true);
  }
}, 120_000);

afterAll(async () => {
  for (const m of mailers) await m.kill();
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await enrollment?.close();
  await sink?.close();
  await env?.cleanup();
}, 60_000);

async function startMailer(): Promise<ServiceProcess> {
  const mailer = spawnService('services/mailer/src/main.ts', {
    ...env.natsEnv('mailer'),
    REDIS_URL: env.redisUrl,
    SUBJECT_PREFIX: env.prefix,
    SMTP_URL: sink.url,
    MAIL_CONCURRENCY: '4',
    // Short on purpose: a dead worker's job is free after 2 s, and a second stall fails it in
    // BullMQ ("stalled more than allowable limit"), which must not be the end of its e-mail.
    MAIL_LOCK_MS: '2000',
    MAIL_STALLED_INTERVAL_MS: '1000',
    MAIL_MAX_STALLED: '1',
  });
  mailers.push(mailer);
  await mailer.waitFor('"msg":"service started"');
  return mailer;
}

/** Waits (polling the sink closely) until a message to one of `to` (any, when empty) awaits its 250. */
async function inTheMiddle(to: string[] = []): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = sink.accepting;
    const hit = to.length ? now.filter((a) => to.includes(a)) : now;
    if (hit.length && (to.length || sink.messages.length >= 8)) return now;
    if (Date.now() > deadline) throw new Error(`no message of ${to.join(', ') || 'anyone'} in flight`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('release e-mails when the mailer is killed', () => {
  it('reaches every subscriber after two SIGKILLs in the middle of one job', async () => {
    let mailer = await startMailer();
    expect(
      await env.bus.request(notifySubscribers, null, { course: 'soon', title: 'Курс soon', summary: 'Коротко' }),
    ).toEqual({ ok: true, data: { notified: SUBSCRIBERS.length } });

    const first = await inTheMiddle();
    expect((await mailer.kill('SIGKILL')).signal).toBe('SIGKILL');
    mailer = await startMailer();
    // The same job (its delivery was in flight at the first kill) in the middle again: kill.
    const second = await inTheMiddle(first);
    expect((await mailer.kill('SIGKILL')).signal).toBe('SIGKILL');
    const twice = second.filter((a) => first.includes(a));
    expect(twice.length).toBeGreaterThan(0);
    await startMailer();

    await eventually(async () => {
      const missing = SUBSCRIBERS.filter((s) => !sink.messages.some((m) => m.to.includes(s)));
      expect(missing).toEqual([]);
    }, 60_000);
    // Every delivery is closed as sent in enrollment, and at least one came back from the database.
    await eventually(async () => {
      const rows = await enrollment.db.selectFrom('mail_outbox').select(['job_id', 'outcome', 'redrives']).execute();
      expect(rows.filter((r) => r.outcome !== 'sent')).toEqual([]);
      return rows;
    });
    const rows = await enrollment.db.selectFrom('mail_outbox').select(['job_id', 'redrives']).execute();
    const redriven = rows.filter((r) => r.redrives > 0).map((r) => r.job_id);
    expect(redriven.some((id) => twice.some((a) => id.endsWith(`:${a}`)))).toBe(true);

    const perRecipient = new Map<string, string[]>();
    for (const m of sink.messages) {
      for (const to of m.to) perRecipient.set(to, [...(perRecipient.get(to) ?? []), m.headers['message-id'] ?? '']);
    }
    const doubled = [...perRecipient].filter(([, ids]) => ids.length > 1);
    console.log(
      `mail crash test: ${SUBSCRIBERS.length} subscribers, ${sink.messages.length} e-mails, ` +
        `${doubled.length} got it twice${doubled.length ? ` (${doubled.map(([to]) => to).join(', ')})` : ''}; ` +
        `killed twice while ${twice.join(', ')} was in flight; re-driven from the database: ${redriven.length}`,
    );
    // A resend carries the same Message-ID, so a receiver can drop it.
    for (const [, ids] of doubled) expect(new Set(ids).size).toBe(1);
    // Only a kill between the server's 250 and enrollment's commit can double an e-mail: at most
    // the jobs in hand (4) per kill, and in practice none.
    expect(doubled.length).toBeLessThanOrEqual(8);
  }, 180_000);
});
