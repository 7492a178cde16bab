import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { notify_when_released, notifySubscribers } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceCourse, startCourses } from '../../../test/support/courses.ts';
import { decodeMail, type SmtpSink, startMailer, startSmtpSink } from '../../../test/support/mailer.ts';
import { startEnrollmentService, student } from '../../enrollment/test/support/service.ts';
import { releaseMailQueueName } from '../src/config.ts';

// The release e-mail path end to end: notify_subscribers → mail outbox → BullMQ → mailer → SMTP.
// The upcoming courses are announced through the real courses service.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollmentService>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
/** Ids of the announced courses «Переговоры», «Стыки» and «Файлы». */
let soon: string;
let later: string;
let third: string;
let sink: SmtpSink;
let queue: Queue;
let mailer: ReturnType<typeof startMailer> | null = null;
let mailDir: string;

const SUBSCRIBERS = ['ann@t', 'bob@t', 'bounce@t', 'flaky@t'];

beforeAll(async () => {
  env = await createTestEnv('release-mail');
  enrollment = await startEnrollmentService(env);
  courses = await startCourses(env);
  mailDir = await mkdtemp(join(tmpdir(), 'studium-mail-'));
  // bounce@t is rejected for good (550); flaky@t is deferred once (451), then accepted.
  sink = await startSmtpSink((address, attempt) => {
    if (address === 'bounce@t') return 550;
    if (address === 'flaky@t' && attempt === 1) return 451;
    return null;
  });
  queue = new Queue(releaseMailQueueName(env.prefix), { connection: { url: env.redisUrl } });
  for (const user of [...SUBSCRIBERS, 'late@t', 'file@t']) {
    await enrollment.admin.upsertUser(user, `Ученик ${user}`, ['Student']);
  }
  const announce = (title: string) =>
    announceCourse(env, enrollment.db, { title, summary: `О курсе «${title}»`, objectives: ['Цель'] });
  soon = await announce('Переговоры');
  later = await announce('Стыки');
  third = await announce('Файлы');
  for (const user of SUBSCRIBERS) await subscribe(user, soon);
  await subscribe('late@t', later);
  await subscribe('file@t', third);
});

afterAll(async () => {
  await mailer?.stop();
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await courses?.close();
  await enrollment?.close();
  await sink?.close();
  await rm(mailDir, { recursive: true, force: true });
  await env?.cleanup();
});

async function subscribe(user: string, course: string) {
  const reply = await env.bus.request(notify_when_released, student(user), { course });
  expect(reply.ok).toBe(true);
}

const notify = (course: string, title: string) =>
  env.bus.request(notifySubscribers, null, { course, title, summary: `О курсе «${title}» коротко` });

const received = (to: string) => sink.messages.filter((m) => m.to.includes(to));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('release e-mails over SMTP', () => {
  it('sends exactly one Russian e-mail per subscriber', async () => {
    mailer = startMailer(env, { smtpUrl: sink.url });
    expect(await notify(soon, 'Переговоры')).toEqual({ ok: true, data: { notified: 4 } });
    await eventually(async () => {
      for (const to of ['ann@t', 'bob@t', 'flaky@t']) expect(received(to)).toHaveLength(1);
    });
    const mail = received('ann@t')[0];
    expect(mail.subject).toBe('Курс «Переговоры» открыт');
    expect(mail.text).toContain('Здравствуйте, Ученик ann@t!');
    expect(mail.text).toContain('О курсе «Переговоры» коротко');
    expect(mail.text).toContain('Запиши меня на курс „Переговоры“');
    expect(mail.from).toBe('no-reply@studium.test');
  });

  it('retries a temporary rejection (451) and delivers once', async () => {
    expect(sink.rcpts.filter((a) => a === 'flaky@t')).toHaveLength(2);
    // The sink has the message before the worker records the job completed: wait for the record.
    await eventually(async () => {
      const job = await queue.getJob(`release-mail:${soon}:flaky@t`);
      expect(await job?.getState()).toBe('completed');
      expect(job?.attemptsMade).toBe(2);
    });
  });

  it('does not retry a permanent rejection (550)', async () => {
    const job = await eventually(async () => {
      const j = await queue.getJob(`release-mail:${soon}:bounce@t`);
      expect(await j?.getState()).toBe('failed');
      return j;
    });
    // Well past the backoff of every remaining attempt (100 ms, doubling): nothing more arrives.
    await sleep(1_000);
    expect(sink.rcpts.filter((a) => a === 'bounce@t')).toHaveLength(1);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/550/);
    expect(received('bounce@t')).toEqual([]);
    // The delivery is closed as rejected, so it is never driven again; the others as sent.
    const rows = await enrollment.db
      .selectFrom('mail_outbox')
      .select(['job_id', 'outcome', 'detail'])
      .where('job_id', 'like', `release-mail:${soon}:%`)
      .orderBy('job_id')
      .execute();
    expect(rows.map((r) => [r.job_id.split(':')[2], r.outcome])).toEqual([
      ['ann@t', 'sent'],
      ['bob@t', 'sent'],
      ['bounce@t', 'rejected'],
      ['flaky@t', 'sent'],
    ]);
    expect(rows.find((r) => r.outcome === 'rejected')?.detail).toMatch(/550/);
  });

  it('sends nothing more when notified again across a mailer restart', async () => {
    await mailer?.stop();
    expect(await notify(soon, 'Переговоры')).toEqual({ ok: true, data: { notified: 0 } });
    // Queued while the mailer is down: delivered once it is back.
    expect(await notify(later, 'Стыки')).toEqual({ ok: true, data: { notified: 1 } });
    mailer = startMailer(env, { smtpUrl: sink.url });
    await eventually(async () => expect(received('late@t')).toHaveLength(1));
    await sleep(500);
    for (const to of ['ann@t', 'bob@t', 'flaky@t', 'late@t']) expect(received(to)).toHaveLength(1);
    expect(sink.messages).toHaveLength(4);
    await mailer.stop();
    mailer = null;
  });
});

describe('release e-mails without SMTP', () => {
  it('writes each e-mail as an .eml file', async () => {
    mailer = startMailer(env, { mailDir });
    expect(await notify(third, 'Файлы')).toEqual({ ok: true, data: { notified: 1 } });
    const files = await eventually(async () => {
      const names = await readdir(mailDir);
      expect(names.filter((n) => n.endsWith('.eml'))).toHaveLength(1);
      return names;
    });
    expect(files[0]).toBe(`release-mail_${third}_file@t.eml`);
    const mail = decodeMail(await readFile(join(mailDir, files[0]), 'utf8'));
    expect(mail.subject).toBe('Курс «Файлы» открыт');
    expect(mail.headers.to).toBe('file@t');
    expect(mail.text).toContain('О курсе «Файлы» коротко');
  });
});
