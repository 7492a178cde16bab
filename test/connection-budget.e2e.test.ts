import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICES } from '../scripts/services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS as ENROLLMENT_MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { connectAgent, text } from './support/clients.ts';
import { freePort, type PgBouncer, serverConnections, startPgBouncer } from './support/pgbouncer.ts';
import { type ServiceProcess, spawnService } from './support/process.ts';

// Two replicas of every deployable against one PostgreSQL through PgBouncer in transaction mode:
// each service's alias has at most POOL server connections, whatever the replicas' own pools ask
// for (DB_POOL_MAX 4 each here), so the server never sees more than the budget.
const POOL = 2;
const SCHEMA: Record<string, string | null> = {
  enrollment: 'enrollment',
  courses: 'courses',
  mailer: null,
  homework: 'homework',
  'ai-chat': 'ai_chat',
  lessons: 'lessons',
  knowledge: 'knowledge',
  reporting: 'reporting',
  edge: 'edge',
};
const SCHEMAS = Object.values(SCHEMA).filter((s): s is string => s !== null);
const BUDGET = POOL * SCHEMAS.length;

let env: TestEnv;
let bouncer: PgBouncer;
let mailDir: string;
const running: Array<{ name: string; process: ServiceProcess; ready: string }> = [];
let peak = 0;
let sampling: NodeJS.Timeout | undefined;

beforeAll(async () => {
  env = await createTestEnv('connection-budget');
  mailDir = await mkdtemp(join(tmpdir(), 'studium-budget-mail-'));
  bouncer = await startPgBouncer({
    database: new URL(env.databaseUrl).pathname.slice(1),
    schemas: SCHEMAS,
    poolSize: POOL,
  });
  const sample = async () => {
    peak = Math.max(peak, await serverConnections(bouncer.role).catch(() => 0));
    sampling = setTimeout(() => void sample(), 100);
  };
  void sample();
  const starts: Promise<void>[] = [];
  for (const svc of SERVICES) {
    for (let replica = 0; replica < 2; replica++) {
      const port = await freePort();
      const schema = SCHEMA[svc.name];
      const process = spawnService(svc.entry, {
        NATS_URL: env.natsUrl,
        REDIS_URL: env.redisUrl,
        SUBJECT_PREFIX: env.prefix,
        ...(schema ? { DATABASE_URL: bouncer.url(schema) } : {}),
        DB_POOL_MAX: '4',
        // PgBouncer 1.18 in transaction mode cannot carry named prepared statements.
        DB_PREPARED_STATEMENTS: 'false',
        MAIL_DIR: mailDir,
        ...(svc.name === 'edge' ? { PORT: String(port), HOST: '127.0.0.1' } : { HEALTH_PORT: String(port) }),
      });
      running.push({ name: svc.name, process, ready: `http://127.0.0.1:${port}/readyz` });
      starts.push(process.waitFor(svc.name === 'edge' ? '"msg":"edge listening"' : '"msg":"service started"', 240_000));
    }
  }
  await Promise.all(starts);
}, 300_000);

afterAll(async () => {
  clearTimeout(sampling);
  await Promise.all(running.map((r) => r.process.kill('SIGTERM')));
  await env?.cleanup();
  await bouncer?.cleanup();
  await rm(mailDir, { recursive: true, force: true });
}, 120_000);

describe('the connection budget', () => {
  it('two replicas of every service run through PgBouncer within its server connections', async () => {
    // Every replica is ready: its dependencies answer (through the pooler for PostgreSQL).
    await eventually(async () => {
      for (const r of running) {
        const res = await fetch(r.ready);
        expect(`${r.name} ${res.status} ${await res.text()}`).toMatch(/ 200 /);
      }
    }, 60_000);
    // Calls that reach PostgreSQL through the edge, enrollment (tokens, catalog) and reporting.
    const database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 1);
    await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, ENROLLMENT_MIGRATIONS]);
    const admin = new EnrollmentAdmin(database.db);
    await admin.upsertUser('anna@test', 'Анна Тестова', ['Student']);
    const { token } = await admin.issueToken('anna@test', { scope: 'write', expiresAt: null });
    await database.close();
    const edge = running.find((r) => r.name === 'edge') as (typeof running)[number];
    const agents = await Promise.all(
      running
        .filter((r) => r.name === 'edge')
        .map((r) => connectAgent('v2', r.ready.replace('/readyz', '/mcp'), token)),
    );
    expect(edge).toBeDefined();
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        agents.flatMap((a) => [a.callTool('whoami'), a.callTool('list_catalog'), a.callTool('get_my_progress')]),
      );
      for (const r of results) expect(r.isError, text(r)).toBeFalsy();
    }
    for (const a of agents) await a.close();
    peak = Math.max(peak, await serverConnections(bouncer.role));
    console.log(
      `connection budget: ${running.length} processes, at most ${peak} server connections (budget ${BUDGET})`,
    );
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(BUDGET);
    for (const r of running)
      expect(r.process.output()).not.toMatch(/too many clients|prepared statement .* does not exist/);
  }, 180_000);
});
