import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, startPgBouncer } from './support/pgbouncer.ts';
import { type ServiceProcess, spawnService } from './support/process.ts';
import { startEdge } from './support/stack.ts';

// A service that starts before its database answers waits for it (not ready meanwhile) and gets
// ready by itself; a database URL that can never work ends the process with one line.
let env: TestEnv;
let bouncer: PgBouncer | null = null;
const processes: ServiceProcess[] = [];
let socketDir: string | undefined;
/** A Redis address nothing listens on: port 1 is privileged, so no test process can take it. */
const NOBODY_REDIS = 'redis://127.0.0.1:1';

/** The free port a service took for its health server (HEALTH_PORT 0), from its log. */
async function healthPort(p: ServiceProcess): Promise<number> {
  await p.waitFor('"msg":"health listening"');
  return Number(/"health":(\d+),"msg":"health listening"/.exec(p.output())?.[1]);
}

beforeAll(async () => {
  env = await createTestEnv('startup');
});

afterAll(async () => {
  for (const p of processes) await p.kill();
  await env?.cleanup();
  await bouncer?.cleanup();
  if (socketDir) await rm(socketDir, { recursive: true, force: true });
}, 60_000);

function enrollment(databaseUrl: string, extra: Record<string, string> = {}) {
  const p = spawnService('services/enrollment/src/main.ts', {
    DATABASE_URL: databaseUrl,
    ...env.natsEnv('enrollment'),
    REDIS_URL: env.redisUrl,
    SUBJECT_PREFIX: env.prefix,
    ...extra,
  });
  processes.push(p);
  return p;
}

const readiness = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as { failed: string[] } };
};

describe('starting before PostgreSQL is reachable', () => {
  it('waits, answers not ready meanwhile, and gets ready once the pooler comes up', async () => {
    // The pooler's address is a socket in a folder of this test's own: nobody else can take it
    // between naming it here and starting the pooler below.
    socketDir = await mkdtemp(join(tmpdir(), 'studium-startup-sock-'));
    const p = enrollment(`postgres://postgres@localhost/enrollment?host=${encodeURIComponent(socketDir)}&port=6432`, {
      HEALTH_PORT: '0',
      DB_PREPARED_STATEMENTS: 'false',
    });
    const health = await healthPort(p);
    await p.waitFor('postgres not reachable yet, waiting');
    await p.waitFor('"attempt":3');
    expect(await readiness(health)).toEqual({ status: 503, body: expect.objectContaining({ failed: ['starting'] }) });
    expect(p.child.exitCode).toBeNull();
    bouncer = await startPgBouncer({
      database: new URL(env.databaseUrl).pathname.slice(1),
      schemas: ['enrollment'],
      poolSize: 2,
      socketDir,
    });
    // The URL names the alias, whose connections log in as the bouncer's role.
    await p.waitFor('"msg":"service started"', 60_000);
    await eventually(async () => expect((await readiness(health)).status).toBe(200), 15_000);
  }, 120_000);
});

describe('a DATABASE_URL that cannot work', () => {
  for (const [what, url, says] of [
    ['a database that does not exist', 'postgres://postgres@127.0.0.1:5432/studium_no_such_db', /does not exist/],
    ['a malformed URL', 'postgres://postgres@127.0.0.1:notaport/x', /not a valid PostgreSQL URL|invalid|port/i],
  ] as const) {
    it(`ends with one line naming it: ${what}`, async () => {
      const p = enrollment(url);
      const exit = await p.exited;
      expect(exit.code).toBe(1);
      const stderr = p
        .output()
        .split('\n')
        .filter((l) => l && !l.startsWith('{'));
      expect(stderr).toHaveLength(1);
      expect(stderr[0]).toMatch(/^enrollment: cannot start: DATABASE_URL /);
      expect(stderr[0]).toMatch(says);
      expect(p.output()).not.toMatch(/\n\s+at /);
    }, 60_000);
  }
});

describe('readiness tells the truth about Redis', () => {
  it('enrollment is not ready without Redis (its mail relay needs it)', async () => {
    const p = enrollment(env.databaseUrl, { REDIS_URL: NOBODY_REDIS, HEALTH_PORT: '0' });
    const health = await healthPort(p);
    await p.waitFor('"msg":"service started"', 60_000);
    const ready = await readiness(health);
    expect(ready.status).toBe(503);
    expect(ready.body.failed).toEqual(['redis']);
  }, 90_000);

  it('the edge stays ready without Redis (it serves every call), and says Redis is missing', async () => {
    const edge = await startEdge({ ...env, redisUrl: NOBODY_REDIS });
    try {
      const res = await edge.app.inject({ method: 'GET', url: '/readyz', headers: { host: '127.0.0.1' } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', failed: [], degraded: ['redis'] });
    } finally {
      await edge.close();
    }
  }, 60_000);
});
