import { createServer } from 'node:net';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../services/edge/src/app.ts';
import { EdgeConfig } from '../services/edge/src/config.ts';
import { onFreePort } from './support/oauth.ts';
import { startEdge } from './support/stack.ts';

// Prometheus scrapes pod IPs with a Host the allow-list does not know: the edge's metrics port
// answers /metrics whatever the Host, and nothing else; the main port keeps its Host check.
let env: TestEnv;
let edge: Awaited<ReturnType<typeof startEdge>>;
let metricsPort: number;

beforeAll(async () => {
  env = await createTestEnv('edge-metrics');
  edge = await onFreePort(async (port) => {
    metricsPort = port;
    return startEdge(env, { METRICS_PORT: String(port) });
  });
});

afterAll(async () => {
  await edge?.close();
  await env?.cleanup();
});

const scrape = (path: string, host: string) => fetch(`http://127.0.0.1:${metricsPort}${path}`, { headers: { host } });

describe('the edge metrics port', () => {
  it('serves /metrics to any Host', async () => {
    const res = await scrape('/metrics', '10.1.2.3:9100');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('studium_tool_calls_total');
  });

  it('serves nothing else, and the main port still refuses an unknown Host', async () => {
    for (const path of ['/mcp', '/readyz', '/metrics/../mcp', '/oauth/token']) {
      expect((await scrape(path, 'studium.example.org')).status, path).toBe(404);
    }
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(404);
    const main = await edge.app.inject({ method: 'GET', url: '/metrics', headers: { host: '10.1.2.3:8080' } });
    expect(main.statusCode).toBe(403);
  });

  it('a METRICS_PORT already taken is a clear start-up error, not an uncaught crash', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const config = EdgeConfig.parse({ SUBJECT_PREFIX: env.prefix, PORT: '0', METRICS_PORT: String(port) });
      await expect(
        buildApp({ bus: edge.bus, db: edge.database.db, redis: edge.redis, log: env.log, config }),
      ).rejects.toThrow(`METRICS_PORT ${port}`);
    } finally {
      taken.close();
    }
  });
});
