import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS as ENROLLMENT_MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { type AgentClient, connectAgent, type ToolResult, text } from './support/clients.ts';
import { startEdge } from './support/stack.ts';

// Two enrollment replicas as real processes behind the real edge; one dies under load.
const root = resolve(import.meta.dirname, '..');
const MAIN = resolve(root, 'services/enrollment/src/main.ts');
const REQUEST_TIMEOUT_MS = 5000;
let env: TestEnv;
let edge: Awaited<ReturnType<typeof startEdge>>;
let token: string;
const replicas: Replica[] = [];
const agents: AgentClient[] = [];

interface Replica {
  child: ChildProcess;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node --import tsx services/enrollment/src/main.ts` (no tsx wrapper process: a signal reaches the service itself). */
async function spawnEnrollment(): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      SUBJECT_PREFIX: env.prefix,
      ...env.natsEnv('enrollment'),
      REDIS_URL: env.redisUrl,
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      LOG_LEVEL: 'info',
      HEALTH_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  const replica = { child, output, exited };
  replicas.push(replica);
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`enrollment did not start:\n${output.join('')}`)), 90_000);
    const seen = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('"msg":"service started"')) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    void exited.then(() => fail(new Error(`enrollment exited:\n${output.join('')}`)));
  });
  return replica;
}

/** Requests each running instance of the service has handled (NATS services API stats). */
async function handledPerInstance(): Promise<number[]> {
  const counts: number[] = [];
  const stats = await (await env.as('operator')).services.client().stats(`${env.prefix}-enrollment`);
  for await (const s of stats) counts.push((s.endpoints ?? []).reduce((n, e) => n + e.num_requests, 0));
  return counts;
}

interface Tally {
  ok: number;
  failed: string[];
  slowestMs: number;
}

/**
 * Runs `workers` loops of calls until `stop` resolves; every result is counted. `warm` resolves
 * once `warmCalls` have succeeded (the load is on before anything is killed).
 */
function load(call: (agent: AgentClient, i: number) => Promise<ToolResult>, warmCalls: number) {
  const tally: Tally = { ok: 0, failed: [], slowestMs: 0 };
  let stopped = false;
  let warmed: () => void = () => {};
  const warm = new Promise<void>((r) => {
    warmed = r;
  });
  const running = Promise.all(
    agents.map(async (agent) => {
      for (let i = 0; !stopped; i++) {
        const started = performance.now();
        try {
          const result = await call(agent, i);
          if (result.isError) tally.failed.push(text(result));
          else tally.ok++;
        } catch (err) {
          tally.failed.push(String(err));
        }
        tally.slowestMs = Math.max(tally.slowestMs, performance.now() - started);
        if (tally.ok >= warmCalls) warmed();
      }
    }),
  );
  return {
    warm,
    tally,
    async stop() {
      stopped = true;
      await running;
      return tally;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  env = await createTestEnv('failover');
  const database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, ENROLLMENT_MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  await admin.upsertUser('anna@test', 'Анна Тестова', ['Student']);
  token = (await admin.issueToken('anna@test', { scope: 'write', expiresAt: null })).token;
  await database.close();
  await Promise.all([spawnEnrollment(), spawnEnrollment()]);
  edge = await startEdge(env, {
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    READ_ATTEMPT_TIMEOUT_MS: '500',
    RATE_LIMIT_PER_MINUTE: '0',
  });
  for (let i = 0; i < 6; i++) agents.push(await connectAgent('v2', `${edge.url}/mcp`, token));
}, 240_000);

afterAll(async () => {
  for (const a of agents) await a.close().catch(() => {});
  await edge?.close();
  for (const r of replicas) r.child.kill('SIGKILL');
  await Promise.all(replicas.map((r) => r.exited));
  await env?.cleanup();
}, 60_000);

describe('failover between replicas', () => {
  it('a replica killed with SIGKILL under load costs read calls nothing', async () => {
    const whoami = load((agent) => agent.callTool('whoami'), 60);
    await whoami.warm;
    // Both replicas are taking calls when one dies.
    const before = await handledPerInstance();
    expect(before).toHaveLength(2);
    expect(Math.min(...before)).toBeGreaterThan(0);
    const retriesBefore = edge.bus.stats.retries;
    const victim = replicas[0];
    // Frozen first, so calls are surely in flight on it when it dies (a crash after a hang): a
    // bare SIGKILL between two calls would leave the retry untested.
    victim.child.kill('SIGSTOP');
    await sleep(300);
    victim.child.kill('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    const okAtKill = whoami.tally.ok;
    await sleep(2500);
    const tally = await whoami.stop();
    expect(tally.failed).toEqual([]);
    expect(tally.ok - okAtKill).toBeGreaterThan(20);
    // The calls the dead replica had taken were answered by the other after one short attempt.
    expect(edge.bus.stats.retries - retriesBefore).toBeGreaterThan(0);
    expect(tally.slowestMs).toBeLessThan(REQUEST_TIMEOUT_MS);
    expect(await handledPerInstance()).toHaveLength(1);
  }, 120_000);

  it('a replica stopped with SIGTERM under load (a rolling update) loses no read and no write', async () => {
    const leaving = await spawnEnrollment();
    await spawnEnrollment();
    // Writes are never retried: any call the leaving replica took and dropped would fail here.
    const mixed = load(
      (agent, i) => (i % 2 ? agent.callTool('set_space', { space: 'personal' }) : agent.callTool('whoami')),
      60,
    );
    await mixed.warm;
    const counts = await handledPerInstance();
    expect(counts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    leaving.child.kill('SIGTERM');
    const exit = await leaving.exited;
    const okAtExit = mixed.tally.ok;
    await sleep(1500);
    const tally = await mixed.stop();
    expect(exit.code).toBe(0);
    expect(leaving.output.join('')).toContain('"msg":"stopping"');
    expect(tally.failed).toEqual([]);
    expect(tally.ok - okAtExit).toBeGreaterThan(10);
    // Nothing was lost: half the calls are writes, which are never retried, so a call the leaving
    // replica took and dropped would be in tally.failed. (Reads may still be retried here when a
    // loaded machine makes a first attempt slower than READ_ATTEMPT_TIMEOUT_MS: that is not a loss.)
  }, 180_000);
});
