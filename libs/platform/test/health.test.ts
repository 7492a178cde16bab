import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Check,
  createMetrics,
  liveness,
  openDatabase,
  portOf,
  runChecks,
  startHealthServer,
} from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: TestEnv;
let server: Server;
let base: string;
let database: ReturnType<typeof openDatabase>;
let broken = false;

beforeAll(async () => {
  env = await createTestEnv('platform-health', { nats: 'open' });
  database = openDatabase(env.databaseUrl, 'public', 2);
  const checks: Record<string, Check> = {
    nats: () => env.nc.flush(),
    postgres: () => database.pool.query('select 1'),
    switchable: async () => {
      if (broken) throw new Error('down');
    },
  };
  server = await startHealthServer(0, checks, createMetrics('platform-test'));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await database?.close();
  await env?.cleanup();
});

describe('runChecks', () => {
  it('reports nothing when the real dependencies answer', async () => {
    const checks = { nats: () => env.nc.flush(), postgres: () => database.pool.query('select 1') };
    expect(await runChecks(checks)).toEqual([]);
  });

  it('reports failing and timing-out checks within about the deadline', async () => {
    const started = Date.now();
    const failed = await runChecks(
      {
        fine: async () => 'ok',
        rejects: async () => {
          throw new Error('refused');
        },
        throwsSync: () => {
          throw new Error('sync');
        },
        hangs: () => new Promise(() => {}),
      },
      150,
    );
    expect(failed.sort()).toEqual(['hangs', 'rejects', 'throwsSync']);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('health server', () => {
  it('answers /healthz with 200', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 200 when every check passes and 503 with the failed names otherwise', async () => {
    broken = false;
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', failed: [] });
    broken = true;
    const unready = await fetch(`${base}/readyz`);
    expect(unready.status).toBe(503);
    expect(await unready.json()).toEqual({ status: 'unavailable', failed: ['switchable'] });
    broken = false;
  });

  it('serves /metrics in the Prometheus text format with the service label', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await res.text();
    expect(body).toMatch(/^# HELP process_cpu_user_seconds_total/m);
    expect(body).toMatch(/^# TYPE nodejs_heap_size_total_bytes gauge$/m);
    expect(body).toContain('service="platform-test"');
  });

  it('answers 404 elsewhere', async () => {
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });
});

describe('liveness', () => {
  it('holds while what the process needs answered within the budget, and fails past it', () => {
    let now = 0;
    const live = liveness(1000, () => now);
    now = 900;
    expect(live.alive()).toBe(true);
    now = 1001;
    expect(live.alive()).toBe(false);
    live.ok();
    expect(live.alive()).toBe(true);
    now = 1900;
    expect(live.unreachableFor()).toBe(899);
  });

  it('/healthz fails once the checks have been failing longer than the budget (a process that never joined the bus)', async () => {
    const never: Record<string, Check> = { starting: () => Promise.reject(new Error('starting')) };
    const stuck = await startHealthServer(0, never, createMetrics('platform-test-stuck'), { budgetMs: 300 });
    const url = `http://127.0.0.1:${portOf(stuck)}`;
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 400));
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'unreachable', failed: ['starting'] });
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
    } finally {
      await new Promise((r) => stuck.close(r));
    }
  });
});
