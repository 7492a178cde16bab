// The production settings, run: STUDIUM_ENV=production and NODE_ENV=production, the secrets
// `npm run secrets -- env` makes (the edge's key pair, the file-URL key, a NATS password per user,
// the ones nats-server checks), every deployable twice, each replica as its own process with its
// own NATS user, and PostgreSQL behind PgBouncer in transaction mode. It is also the evidence for
// the connection budget: each service's alias has at most POOL server connections, whatever the
// replicas' own pools ask for (DB_POOL_MAX 4 each here), so the server never sees more than it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { createTestEnv, type NatsUser, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type Running, stopAll, waitReady } from '../scripts/launch.ts';
import { NATS_USERS, passwordVariable } from '../scripts/nats-auth.ts';
import { SERVICES } from '../scripts/services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS as ENROLLMENT_MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { connectAgent, text } from './support/clients.ts';
import { type PgBouncer, serverConnections, startPgBouncer } from './support/pgbouncer.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
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
let made: Record<string, string>;
let bouncer: PgBouncer;
let mailDir: string;
let running: Running[] = [];
let peak = 0;
let sampling: NodeJS.Timeout | undefined;

/** `npm run secrets -- env`, as an operator makes a deployment's secrets. */
async function secrets(): Promise<Record<string, string>> {
  const { stdout } = await run(resolve(root, 'node_modules/.bin/tsx'), ['scripts/secrets.ts', 'env'], { cwd: root });
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

beforeAll(async () => {
  made = await secrets();
  const natsPasswords = Object.fromEntries(NATS_USERS.map((u) => [u, made[passwordVariable(u)] as string])) as Record<
    NatsUser,
    string
  >;
  env = await createTestEnv('connection-budget', { natsPasswords });
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
  const production = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    STUDIUM_ENV: 'production',
    EDGE_PUBLIC_KEY: made.EDGE_PUBLIC_KEY as string,
    REDIS_URL: env.redisUrl,
    SUBJECT_PREFIX: env.prefix,
    DB_POOL_MAX: '4',
    // PgBouncer 1.18 in transaction mode cannot carry named prepared statements.
    DB_PREPARED_STATEMENTS: 'false',
    LOG_LEVEL: 'info',
    HEALTH_PORT: '0',
  };
  const own: Record<string, Record<string, string>> = {
    edge: {
      PORT: '0',
      HOST: '127.0.0.1',
      EDGE_SIGNING_KEY: made.EDGE_SIGNING_KEY as string,
      ENROLLMENT_PUBLIC_KEY: made.ENROLLMENT_PUBLIC_KEY as string,
    },
    enrollment: { ENROLLMENT_SIGNING_KEY: made.ENROLLMENT_SIGNING_KEY as string },
    homework: {},
    mailer: { MAIL_DIR: mailDir },
    knowledge: { WARM_CONNECTIONS: '1' },
  };
  for (const name of ['edge', 'homework'])
    own[name] = { ...own[name], FILE_URL_SECRET: made.FILE_URL_SECRET as string };
  for (const svc of SERVICES) {
    const schema = SCHEMA[svc.name];
    for (let replica = 1; replica <= 2; replica++) {
      running.push(
        launch(`${svc.name}#${replica}`, [process.execPath, '--import', 'tsx', resolve(root, svc.entry)], {
          cwd: root,
          env: {
            ...production,
            ...env.natsEnv(svc.name),
            ...(schema ? { DATABASE_URL: bouncer.url(schema) } : {}),
            ...own[svc.name],
          },
        }),
      );
    }
  }
  const notReady = await waitReady(running, 240_000);
  expect(notReady, JSON.stringify(notReady, null, 2)).toEqual([]);
}, 300_000);

afterAll(async () => {
  clearTimeout(sampling);
  await stopAll(running, 10_000);
  running = [];
  await env?.cleanup();
  await bouncer?.cleanup();
  await rm(mailDir, { recursive: true, force: true });
}, 120_000);

describe('the production settings, two replicas of every deployable behind PgBouncer', () => {
  it('serve calls through both edges within the pooler’s server connections', async () => {
    // Calls that reach PostgreSQL through the edge, enrollment (tokens, catalog) and reporting.
    const database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 1);
    await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, ENROLLMENT_MIGRATIONS]);
    const admin = new EnrollmentAdmin(database.db);
    await admin.upsertUser('anna@test', 'Анна Тестова', ['Student']);
    const { token } = await admin.issueToken('anna@test', { scope: 'write', expiresAt: null });
    await database.close();
    const edges = running.filter((r) => r.name.startsWith('edge#'));
    const agents = await Promise.all(edges.map((r) => connectAgent('v2', `http://127.0.0.1:${r.port()}/mcp`, token)));
    try {
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(
          agents.flatMap((a) => [a.callTool('whoami'), a.callTool('list_catalog'), a.callTool('get_my_progress')]),
        );
        for (const r of results) expect(r.isError, text(r)).toBeFalsy();
      }
    } finally {
      for (const a of agents) await a.close();
    }
    peak = Math.max(peak, await serverConnections(bouncer.role));
    console.log(
      `connection budget: ${running.length} processes, at most ${peak} server connections (budget ${BUDGET})`,
    );
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(BUDGET);
    for (const r of running)
      expect(r.output(), r.name).not.toMatch(/too many clients|prepared statement .* does not exist/);
  }, 180_000);

  it('refuse to start without the production secrets (no development stand-ins)', async () => {
    const bare = launch(
      'edge-without-key',
      [process.execPath, '--import', 'tsx', resolve(root, 'services/edge/src/main.ts')],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          STUDIUM_ENV: 'production',
          NODE_ENV: 'production',
          ...env.natsEnv('edge'),
          DATABASE_URL: bouncer.url('edge'),
          FILE_URL_SECRET: made.FILE_URL_SECRET as string,
          PORT: '0',
        },
      },
    );
    const { code } = await bare.exited;
    expect(code).toBe(1);
    expect(bare.output()).toMatch(/EDGE_SIGNING_KEY is not set/);
  }, 60_000);
});
