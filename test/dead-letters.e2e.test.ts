import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, publishCards } from '../services/enrollment/test/support/cards.ts';
import { startEnrollment } from './support/stack.ts';

// A poison event for the real enrollment service, parked, listed and replayed with the admin CLI
// as an operator runs it (a separate process against the same database and NATS).
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;

async function cli(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await run(resolve(root, 'node_modules/.bin/tsx'), [resolve(root, 'scripts/cli.ts'), ...args], {
      env: { ...process.env, DATABASE_URL: env.databaseUrl, SUBJECT_PREFIX: env.prefix, ...env.natsEnv('operator') },
    });
    return { stdout, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { stdout: `${e.stdout ?? ''}${e.stderr ?? ''}`, code: e.code ?? 1 };
  }
}

const inCatalog = async (course: string) =>
  (await enrollment.db.selectFrom('catalog').select(['course', 'revision']).where('course', '=', course).execute())[0];

beforeAll(async () => {
  env = await createTestEnv('dead-letters');
  enrollment = await startEnrollment(env, { CONSUMER_MAX_ATTEMPTS: '3', CONSUMER_RETRY_MS: '50' });
});

afterAll(async () => {
  await enrollment?.close();
  await env?.cleanup();
});

describe('dead letters of a real service', () => {
  it('parks a card the catalog cannot store, keeps consuming, and applies it when replayed after the fix', async () => {
    // A revision past PostgreSQL's integer: valid by the contract, refused by enrollment's column.
    const [poison] = await publishCards(env, [card('huge', { revision: 2 ** 31 })]);
    await publishCards(env, [card('fine')]);
    await eventually(async () => expect(await inCatalog('fine')).toBeDefined());
    await eventually(async () => {
      const { rows } = await sql<{
        msg_id: string;
        attempts: number;
      }>`select msg_id, attempts from dead_letters`.execute(enrollment.db);
      expect(rows).toEqual([{ msg_id: poison.id, attempts: 3 }]);
    });
    expect(await inCatalog('huge')).toBeUndefined();

    const listed = await cli('dead-letters');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('enrollment-catalog');
    expect(listed.stdout).toContain(poison.id);
    expect(listed.stdout).toContain('out of range');
    const { rows } = await sql<{ id: number }>`select id from dead_letters`.execute(enrollment.db);

    // The fix ships (a migration widening the column); the operator replays the parked event.
    await sql`alter table catalog alter column revision type bigint`.execute(enrollment.db);
    const replayed = await cli('dead-letters', 'replay', 'enrollment', String(rows[0].id));
    expect(replayed).toEqual({ stdout: `dead letter enrollment/${rows[0].id} replayed\n`, code: 0 });
    await eventually(async () => expect(await inCatalog('huge')).toMatchObject({ revision: 2 ** 31 }));
    const after = await sql<{
      replayed: boolean;
    }>`select replayed_at is not null as replayed from dead_letters`.execute(enrollment.db);
    expect(after.rows).toEqual([{ replayed: true }]);

    // Replaying it again, or something that does not exist, says so and fails.
    const again = await cli('dead-letters', 'replay', 'enrollment', String(rows[0].id));
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`no parked dead letter enrollment/${rows[0].id}`);
  }, 180_000);
});
