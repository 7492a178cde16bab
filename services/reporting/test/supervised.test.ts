import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { events } from '@studium/contracts';
import { type Database, openDatabase, streamNames } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvents } from '../../enrollment/test/support/cards.ts';
import { ReportingAdmin } from '../src/admin.ts';
import { SCHEMA } from '../src/config.ts';
import type { ReportingDb } from '../src/db.ts';
import { currentGeneration } from '../src/generation.ts';
import { REPORTING_CONSUMER } from '../src/live-consumer.ts';

// The real reporting process (runService, its /readyz and /metrics) whose consumer loop is ended
// under it by deleting the durable on the server.
const ROOT = resolve(import.meta.dirname, '../../..');
const USER = events['enrollment.user_created'].subject;
let env: TestEnv;
let database: Database<ReportingDb>;
let child: ChildProcess | null = null;
let exited: Promise<number | null>;
let health: string;
const output: string[] = [];
const at = () => new Date().toISOString();

async function ready(): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${health}/readyz`);
  return { status: res.status, body: await res.json() };
}

/** A sample of the reporting process's /metrics (0 when absent). */
async function metric(line: RegExp): Promise<number> {
  const text = await (await fetch(`${health}/metrics`)).text();
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').pop()) : 0;
}
/** Events the live consumer applied (each observes the lag once, a redelivered one never). */
const applied = () => metric(/^reporting_event_lag_seconds_count\{/);
const restarts = () => metric(/^studium_consumer_restarts_total\{consumer="reporting-read-models"/);

async function users(): Promise<string[]> {
  const generation = await currentGeneration(database.db);
  const r = await sql<{ id: string }>`select id from ${sql.table(`${generation}.users`)} order by id`.execute(
    database.db,
  );
  return r.rows.map((u) => u.id);
}

const publishUsers = (ids: string[]) =>
  publishEvents(
    env,
    USER,
    ids.map((user) => ({ user, full_name: `Сотрудник ${user}`, at: at() })),
  );

beforeAll(async () => {
  env = await createTestEnv('reporting-supervised');
  // node with the tsx loader, not the tsx launcher: SIGTERM reaches the service itself.
  child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'services/reporting/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      SUBJECT_PREFIX: env.prefix,
      ...env.natsEnv('reporting'),
      // A free port of its own, named in its log.
      HEALTH_PORT: '0',
      LOG_LEVEL: 'info',
      RETENTION_INTERVAL_MS: '0',
      // Long enough to publish into the window while the loop is down, every time.
      EVENT_RESTART_DELAY_MS: '2500',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exited = new Promise((done) => child?.on('exit', (code) => done(code)));
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  await eventually(
    async () => {
      if (child?.exitCode !== null) throw new Error(`reporting exited:\n${output.join('')}`);
      expect(output.join('')).toContain('"msg":"service started"');
    },
    90_000,
    100,
  );
  health = `http://127.0.0.1:${/"health":(\d+),"msg":"health listening"/.exec(output.join(''))?.[1]}`;
  database = openDatabase<ReportingDb>(env.databaseUrl, SCHEMA, 2);
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  await database?.close();
  await env?.cleanup();
});

describe('the live consumer loop ends under the running service', () => {
  it('reports not ready, restarts, counts the restart, and applies every event once', async () => {
    await publishUsers(['a@t', 'b@t', 'c@t']);
    await eventually(async () => expect(await users()).toEqual(['a@t', 'b@t', 'c@t']), 15_000);
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', failed: [] } });
    expect(await restarts()).toBe(0);
    expect(await applied()).toBe(3);

    // An operator (or a stream re-creation) deletes the durable under the running loop.
    const jsm = await (await env.as('operator')).jetstreamManager();
    await jsm.consumers.delete(streamNames(env.prefix).stream, REPORTING_CONSUMER);
    await eventually(async () => expect((await ready()).status).toBe(503), 5000, 20);
    expect((await ready()).body).toEqual({ status: 'unavailable', failed: ['consumers'] });
    // Published while the loop is down: still not ready after, so they did not go through the old loop.
    await publishUsers(['d@t', 'e@t']);
    expect((await ready()).status).toBe(503);
    expect(await users()).toEqual(['a@t', 'b@t', 'c@t']);

    await eventually(async () => expect((await ready()).status).toBe(200), 15_000, 50);
    expect(await restarts()).toBe(1);
    await eventually(async () => expect(await users()).toEqual(['a@t', 'b@t', 'c@t', 'd@t', 'e@t']), 15_000);
    // The re-created durable delivers the stream from its start: the first three again, as no-ops.
    await eventually(async () => {
      const info = await jsm.consumers.info(streamNames(env.prefix).stream, REPORTING_CONSUMER);
      expect(info.num_ack_pending + info.num_pending).toBe(0);
    }, 15_000);
    expect(await applied()).toBe(5);
    expect(output.join('')).toContain('"msg":"consumer loop ended, restarting"');
  }, 60_000);

  it('keeps working with a rebuild run while the service runs, and stops cleanly', async () => {
    const admin = new ReportingAdmin(database, env.log);
    const before = await currentGeneration(database.db);
    const result = await admin.rebuild(await env.as('operator'), env.prefix);
    expect(result.generation).not.toBe(before);
    expect(result.applied).toBe(5);
    expect(await users()).toEqual(['a@t', 'b@t', 'c@t', 'd@t', 'e@t']);
    // The live consumer writes into the new generation.
    await publishUsers(['f@t']);
    await eventually(async () => expect(await users()).toContain('f@t'), 15_000);
    expect(await applied()).toBe(6);
    expect((await ready()).status).toBe(200);

    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
