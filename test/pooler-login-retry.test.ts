import { createServer, type Server, type Socket, connect as tcp } from 'node:net';
import { createTestEnv, type TestEnv } from '@studium/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, SERVER_LOGIN_RETRY_S, startPgBouncer } from './support/pgbouncer.ts';

// The shipped pooler after PostgreSQL stops and starts again (issue 29): with PgBouncer's default
// server_login_retry (15 s) a pool that saw one failed server login kept refusing its clients for
// 15 s after PostgreSQL was back. The test stops "PostgreSQL" with a proxy in front of the
// machine's one (the shared server itself cannot be stopped) and measures how long the pool takes.
let env: TestEnv;
let bouncer: PgBouncer;
let proxy: Server;
let up = true;
const piped = new Set<Socket>();

beforeAll(async () => {
  env = await createTestEnv('pooler-login-retry');
  // While down, a connection is closed at once and every open one is cut: PostgreSQL stopped.
  proxy = createServer((client) => {
    if (!up) return void client.destroy();
    const server = tcp(5432, '127.0.0.1');
    for (const [a, b] of [
      [client, server],
      [server, client],
    ] as const) {
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        b.destroy();
        piped.delete(a);
      });
      piped.add(a);
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  bouncer = await startPgBouncer({
    database: new URL(env.databaseUrl).pathname.slice(1),
    schemas: ['public'],
    poolSize: 1,
    upstreamPort: (proxy.address() as { port: number }).port,
  });
});

afterAll(async () => {
  await bouncer?.cleanup();
  for (const s of piped) s.destroy();
  await new Promise((r) => proxy?.close(r));
  await env?.cleanup();
});

/** One query through the pooler on a fresh client, given up after 2 s. */
async function query(): Promise<boolean> {
  const client = new pg.Client({ connectionString: bouncer.url('public'), connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query({ text: 'select 1', query_timeout: 2_000 } as never);
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

describe('PgBouncer after a PostgreSQL stop', () => {
  it('runs the shipped server_login_retry', () => {
    expect(SERVER_LOGIN_RETRY_S).toBeGreaterThan(0);
    expect(SERVER_LOGIN_RETRY_S).toBeLessThanOrEqual(2);
  });

  it('serves again within server_login_retry of PostgreSQL coming back, not 15 s later', async () => {
    expect(await query()).toBe(true);
    up = false;
    for (const s of piped) s.destroy();
    // Calls during the stop fail, and the pool records its failed server logins.
    expect(await query()).toBe(false);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await query()).toBe(false);
    up = true;
    const back = Date.now();
    let served = false;
    while (!served && Date.now() - back < 20_000) {
      served = await query();
      if (!served) await new Promise((r) => setTimeout(r, 100));
    }
    const tookMs = Date.now() - back;
    console.log(`pooler back ${tookMs} ms after PostgreSQL (server_login_retry ${SERVER_LOGIN_RETRY_S} s)`);
    expect(served).toBe(true);
    expect(tookMs).toBeLessThan(SERVER_LOGIN_RETRY_S * 1000 + 1_500);
  }, 40_000);
});
