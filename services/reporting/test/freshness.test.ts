import { events, org_report, student_detail } from '@studium/contracts';
import { listDeadLetters } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvents } from '../../enrollment/test/support/cards.ts';
import { REPORTING_CONSUMER } from '../src/live-consumer.ts';
import { call, courseCard, lessonEvents, SUBJECTS, startReporting, who } from './support/reporting.ts';

let env: TestEnv;
let reporting: Awaited<ReturnType<typeof startReporting>>;
const now = () => new Date().toISOString();

beforeAll(async () => {
  env = await createTestEnv('reporting-freshness');
  reporting = await startReporting(env);
  await publishEvents(env, events['enrollment.user_created'].subject, [
    { user: 'lead@t', full_name: 'Руководитель', at: now() },
    { user: 'emp@t', full_name: 'Сотрудник', at: now() },
  ]);
  await publishEvents(env, events['enrollment.membership_changed'].subject, [
    { organization: 'acme', user: 'lead@t', role: 'manager', at: now() },
    { organization: 'acme', user: 'emp@t', role: 'member', at: now() },
  ]);
  await publishEvents(env, events['enrollment.assignment_changed'].subject, [
    { user: 'emp@t', course: 'f1', space: 'acme', organization: 'acme', mandatory: true, deadline: null, at: now() },
  ]);
  await publishEvents(env, SUBJECTS.card, [courseCard('f1', 2)]);
  await eventually(async () => {
    const r = await call(env, org_report, who('lead@t'));
    expect(r.ok && r.data.rows.length).toBe(1);
  });
});

afterAll(async () => {
  await reporting?.close();
  await env?.cleanup();
});

/** Publishes events and returns how long until the check passes (polling every 10 ms). */
async function timeToSee(publish: () => Promise<unknown>, check: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await publish();
  await eventually(check, 5000, 10);
  return performance.now() - started;
}

describe('freshness', () => {
  it('shows a mark, a pass and a homework status in the reports within moments, and measures the lag', async () => {
    const e = lessonEvents('emp@t', 'f1', 'acme');
    await publishEvents(env, SUBJECTS.started, [e.started(1, 's1', now())]);
    const detail = async () => {
      const r = await call(env, student_detail, who('lead@t'), { user: 'emp@t' });
      if (!r.ok) throw new Error(r.error.code);
      return r.data;
    };
    const mark = await timeToSee(
      () => publishEvents(env, SUBJECTS.marked, [e.marked(1, 's1', 'l1-D1', 'covered', now())]),
      async () => expect((await detail()).sessions[0]?.objectives[0]?.status).toBe('covered'),
    );
    const pass = await timeToSee(
      () => publishEvents(env, SUBJECTS.passed, [e.passed(1, 's1', now(), 1, 2)]),
      async () => {
        const r = await call(env, org_report, who('lead@t'));
        expect(r.ok && r.data.rows[0]?.progress).toBe(0.5);
      },
    );
    const homework = await timeToSee(
      () => publishEvents(env, SUBJECTS.homework, [e.homework(1, 'Accepted', 1, now())]),
      async () => expect((await detail()).homework?.[0]?.status).toBe('Accepted'),
    );
    // A second is the target under normal load; this shared test machine gets some slack.
    for (const ms of [mark, pass, homework]) expect(ms).toBeLessThan(3000);
    const text = await reporting.metrics.metrics();
    const count = Number(/^reporting_event_lag_seconds_count(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
    expect(count).toBeGreaterThanOrEqual(9);
    expect(text).toContain('reporting_event_lag_seconds_bucket{le="1"}');
    expect(Number(/^reporting_batch_events_sum(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0)).toBeGreaterThanOrEqual(9);
  });

  it('parks a malformed event in dead_letters with the reason and goes on with the next one', async () => {
    // A publisher bug: a name change without the name.
    const [bad] = await publishEvents(env, events['enrollment.user_updated'].subject, [{ user: 'emp@t', at: now() }]);
    await publishEvents(env, events['enrollment.user_updated'].subject, [
      { user: 'emp@t', full_name: 'Сотрудник Переименованный', at: now() },
    ]);
    await eventually(async () => {
      const r = await call(env, student_detail, who('lead@t'), { user: 'emp@t' });
      expect(r.ok && r.data.full_name).toBe('Сотрудник Переименованный');
    });
    const parked = await eventually(async () => {
      const rows = (await listDeadLetters(reporting.database.pool)).filter((d) => d.msg_id === bad.id);
      expect(rows).toHaveLength(1);
      return rows[0];
    });
    expect(parked).toMatchObject({ consumer: REPORTING_CONSUMER, attempts: 1, replayed_at: null });
    expect(parked.error).toContain('malformed evt.enrollment.user_updated payload');
    expect(parked.error).toContain('full_name');
    expect(await reporting.metrics.getSingleMetricAsString('studium_dead_letters_total')).toContain(
      `consumer="${REPORTING_CONSUMER}"} 1`,
    );
  });
});
