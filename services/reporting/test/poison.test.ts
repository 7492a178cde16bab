import { events } from '@studium/contracts';
import { ensureStream, streamNames } from '@studium/platform';
import { createTestEnv, eventually, producerOf, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvents } from '../../enrollment/test/support/cards.ts';
import { currentGeneration } from '../src/generation.ts';
import { REPORTING_CONSUMER } from '../src/live-consumer.ts';
import { startReporting } from './support/reporting.ts';

// A poison event inside a batch: the batch fails as a whole, its events are applied one by one
// (the others go through), and the poison one is redelivered and then parked as a dead letter.
let env: TestEnv;
let reporting: Awaited<ReturnType<typeof startReporting>>;
const at = () => new Date().toISOString();
const USER = events['enrollment.user_created'].subject;

beforeAll(async () => {
  env = await createTestEnv('reporting-poison');
});

afterAll(async () => {
  await reporting?.close();
  await env?.cleanup();
});

describe('a poison event in a batch', () => {
  it('does not hold back the others and is parked after its attempts', async () => {
    // Published before the service starts, so they arrive together as one batch.
    const before = await publishEvents(env, USER, [
      { user: 'a@t', full_name: 'Первый', at: at() },
      { user: 'b@t', full_name: 'Нуль\u0000байт', at: at() },
      { user: 'c@t', full_name: 'Третий', at: at() },
    ]);
    await ensureStream(await env.as('operator'), env.prefix);
    await (await env.as(producerOf(USER)))
      .jetstream()
      .publish(streamNames(env.prefix).subject(USER), 'not json at all');
    reporting = await startReporting(env, { EVENT_MAX_ATTEMPTS: '2', EVENT_RETRY_DELAY_MS: '50' });
    const parked = async () =>
      (
        await sql<{ consumer: string; msg_id: string | null; error: string }>`
          select consumer, msg_id, error from dead_letters order by id`.execute(reporting.db)
      ).rows;
    await eventually(async () => expect(await parked()).toHaveLength(2), 15_000);
    const rows = await parked();
    expect(rows.map((r) => r.consumer)).toEqual([REPORTING_CONSUMER, REPORTING_CONSUMER]);
    expect(rows.map((r) => r.msg_id).sort()).toEqual([before[1]?.id, null].sort());
    expect(rows.find((r) => r.msg_id === null)?.error).toMatch(/malformed event/);
    const generation = await currentGeneration(reporting.db);
    const users = await sql<{ id: string }>`select id from ${sql.table(`${generation}.users`)} order by id`.execute(
      reporting.db,
    );
    expect(users.rows.map((u) => u.id)).toEqual(['a@t', 'c@t']);
    // The consumer goes on after the poison event.
    await publishEvents(env, USER, [{ user: 'd@t', full_name: 'Четвёртый', at: at() }]);
    await eventually(async () => {
      const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(`${generation}.users`)}`.execute(
        reporting.db,
      );
      expect(r.rows[0]?.n).toBe(3);
    });
    const metrics = await reporting.metrics.metrics();
    expect(metrics).toMatch(/studium_dead_letters_total\{consumer="reporting-read-models"\} 2/);
  }, 30_000);
});
