import { notify_when_released, notifySubscribers, SUBSCRIPTION_NOTIFIED } from '@studium/contracts';
import { Failure, streamNames } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseMailQueueName } from '../src/app.ts';
import { card, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;
let queue: Queue;

beforeAll(async () => {
  env = await createTestEnv('notify-subscribers');
  svc = await startEnrollmentService(env);
  queue = new Queue(releaseMailQueueName(env.prefix), { connection: { url: env.redisUrl } });
  for (const [id, name] of [
    ['ann@t', 'Анна'],
    ['bob@t', 'Борис'],
    ['cat@t', 'Катя'],
    ['dan@t', 'Данила'],
  ]) {
    await svc.admin.upsertUser(id, name, ['Student']);
  }
  await seedCards(env, svc.db, [
    card('soon', { status: 'upcoming' }),
    card('later', { status: 'upcoming' }),
    card('open'),
    card('draft', { status: 'draft' }),
    card('acme-soon', { status: 'upcoming', title: 'Анонс для Акме' }),
  ]);
  await svc.admin.upsertOrganization('acme', 'Акме');
  await svc.admin.upsertOrganization('globex', 'Глобекс');
  await svc.admin.upsertUser('emp@t', 'Сотрудник', ['Student']);
  await svc.admin.addMember('globex', 'emp@t', 'member');
  await svc.admin.allowCourse('acme', 'acme-soon');
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await svc?.close();
  await env?.cleanup();
});

const subscribe = (user: string, course: string, notify?: boolean) =>
  env.bus.request(notify_when_released, student(user), notify === undefined ? { course } : { course, notify });

describe('notify_when_released', () => {
  it('subscribes to an announcement; repeating changes nothing', async () => {
    expect(await subscribe('ann@t', 'soon')).toEqual({
      ok: true,
      data: { course: 'soon', title: 'Курс soon', notify: true },
    });
    expect(await subscribe('ann@t', 'soon', true)).toEqual({
      ok: true,
      data: { course: 'soon', title: 'Курс soon', notify: true },
    });
  });

  it('refuses course_not_upcoming for an open course, a draft and an unknown course', async () => {
    const open = await subscribe('ann@t', 'open');
    expect(open).toMatchObject({ ok: false, error: { code: 'course_not_upcoming', course: 'open' } });
    if (!open.ok) expect(open.error.message).toContain('enroll');
    expect(await subscribe('ann@t', 'draft')).toMatchObject({ ok: false, error: { code: 'course_not_upcoming' } });
    expect(await subscribe('ann@t', 'nope')).toMatchObject({ ok: false, error: { code: 'course_not_upcoming' } });
  });

  it('subscribes only to an announcement the student sees in the catalog, and names no hidden course', async () => {
    // acme-soon is open to Акме only: the Глобекс employee does not see it, a student without organizations does.
    const hidden = await subscribe('emp@t', 'acme-soon');
    expect(hidden).toMatchObject({ ok: false, error: { code: 'course_not_upcoming', course: 'acme-soon' } });
    if (!hidden.ok) expect(hidden.error.message).not.toContain('Анонс для Акме');
    expect(await subscribe('ann@t', 'acme-soon')).toMatchObject({ ok: true, data: { title: 'Анонс для Акме' } });
    await svc.admin.addMember('acme', 'emp@t', 'member');
    expect(await subscribe('emp@t', 'acme-soon')).toMatchObject({ ok: true, data: { notify: true } });
    // Unsubscribing works for any course, and names it by its id when the student cannot see it.
    await svc.admin.removeMember('acme', 'emp@t');
    expect(await subscribe('emp@t', 'acme-soon', false)).toEqual({
      ok: true,
      data: { course: 'acme-soon', title: 'acme-soon', notify: false },
    });
    for (const draft of [await subscribe('ann@t', 'draft')]) {
      if (!draft.ok) expect(draft.error.message).not.toContain('Курс draft');
    }
  });

  it('unsubscribes from any course, known or not', async () => {
    await subscribe('cat@t', 'soon');
    expect(await subscribe('cat@t', 'soon', false)).toEqual({
      ok: true,
      data: { course: 'soon', title: 'Курс soon', notify: false },
    });
    expect(await subscribe('cat@t', 'nope', false)).toEqual({
      ok: true,
      data: { course: 'nope', title: 'nope', notify: false },
    });
  });
});

describe('notify_subscribers', () => {
  it('notifies each pending subscriber once, queues one mail job each and emits subscription_notified', async () => {
    await subscribe('bob@t', 'soon');
    await subscribe('dan@t', 'later');
    const args = { course: 'soon', title: 'Курс soon', summary: 'О чём курс' };
    expect(await env.bus.request(notifySubscribers, null, args)).toEqual({ ok: true, data: { notified: 2 } });
    expect(await env.bus.request(notifySubscribers, null, args)).toEqual({ ok: true, data: { notified: 0 } });

    const subs = await svc.db
      .selectFrom('subscriptions')
      .select(['user_id', 'notified_at'])
      .where('course', '=', 'soon')
      .orderBy('user_id')
      .execute();
    expect(subs.map((s) => [s.user_id, s.notified_at !== null])).toEqual([
      ['ann@t', true],
      ['bob@t', true],
      ['cat@t', false],
    ]);

    await svc.app.flush();
    const job = await eventually(async () => {
      const j = await queue.getJob('release-mail:soon:ann@t');
      if (!j) throw new Error('job not queued yet');
      return j;
    });
    expect(job.data).toEqual({
      to: 'ann@t',
      full_name: 'Анна',
      course: 'soon',
      title: 'Курс soon',
      summary: 'О чём курс',
      delivery: 'release-mail:soon:ann@t',
    });
    expect(job.opts).toMatchObject({ attempts: 5, backoff: { type: 'exponential', delay: 100 } });
    expect(await queue.getJob('release-mail:soon:bob@t')).toBeDefined();
    expect(await queue.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed')).toMatchObject({
      waiting: 2,
    });

    const jsm = await (await env.as('operator')).jetstreamManager();
    const names = streamNames(env.prefix);
    const info = await eventually(async () => {
      const i = await jsm.streams.info(names.stream, { subjects_filter: names.subject(SUBSCRIPTION_NOTIFIED) });
      if (i.state.subjects?.[names.subject(SUBSCRIPTION_NOTIFIED)] !== 2) throw new Error('events not published yet');
      return i;
    });
    expect(info.state.subjects).toEqual({ [names.subject(SUBSCRIPTION_NOTIFIED)]: 2 });
  });

  it('hands a pending mail row to the queue again without a second job (deterministic jobId)', async () => {
    // As after a crash between the add and the commit: the row is still pending, the job exists.
    await svc.db.updateTable('mail_outbox').set({ enqueued_at: null }).execute();
    await svc.app.flush();
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 2 });
    const pending = await svc.db.selectFrom('mail_outbox').select('id').where('enqueued_at', 'is', null).execute();
    expect(pending).toEqual([]);
  });
});

describe('a subscription racing the release', () => {
  it('is refused course_not_upcoming once the e-mails went out, even while the catalog still shows the announcement', async () => {
    await seedCards(env, svc.db, [card('racing', { status: 'upcoming' })]);
    expect(await subscribe('cat@t', 'racing')).toMatchObject({ ok: true });
    const sent = await env.bus.request(notifySubscribers, null, { course: 'racing', title: 'Гонка', summary: 'Курс' });
    expect(sent).toEqual({ ok: true, data: { notified: 1 } });
    // The catalog has not yet heard that the course is open (no new card): the subscription would
    // otherwise wait for an e-mail that has already been sent.
    const late = await subscribe('dan@t', 'racing');
    expect(late).toMatchObject({ ok: false, error: { code: 'course_not_upcoming', course: 'racing' } });
    expect(await subscribe('dan@t', 'racing', false)).toMatchObject({ ok: true, data: { notify: false } });
  });
});

describe('a caller that gives up', () => {
  it('changes nothing when the caller gave up while the course was locked', async () => {
    await seedCards(env, svc.db, [card('locked', { status: 'upcoming' })]);
    await subscribe('bob@t', 'locked');
    const args = { course: 'locked', title: 'Курс locked', summary: 'Кратко' };
    // Another publish holds the course's lock past the caller's timeout.
    const holder = await svc.database.pool.connect();
    try {
      await holder.query('begin');
      await holder.query(`select pg_advisory_xact_lock(hashtext('enrollment.subscriptions'), hashtext('locked'))`);
      const err = await env.bus.request(notifySubscribers, null, args, { timeoutMs: 300 }).catch((e) => e);
      expect(err).toBeInstanceOf(Failure);
      expect(err.status).toBe(504);
      await new Promise((r) => setTimeout(r, 400));
      await holder.query('commit');
    } finally {
      holder.release();
    }
    // The handler got the lock after its caller left and rolled back: the subscriber is still pending.
    await new Promise((r) => setTimeout(r, 300));
    const pending = await svc.db
      .selectFrom('released_courses')
      .select('course')
      .where('course', '=', 'locked')
      .execute();
    expect(pending).toEqual([]);
    expect(await env.bus.request(notifySubscribers, null, args)).toEqual({ ok: true, data: { notified: 1 } });
  });
});
