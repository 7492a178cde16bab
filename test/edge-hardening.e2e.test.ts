import { phraseFor } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, text } from './support/clients.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;

beforeAll(async () => {
  env = await createTestEnv('edge-hardening');
  enrollment = await startEnrollment(env);
  await enrollment.admin.upsertUser('student@test', 'Анна Ученица', ['Student']);
});

afterAll(async () => {
  await enrollment?.close();
  await env?.cleanup();
});

describe('rate limit', () => {
  it('three edges share one limit per token, within a few calls, and the refusal says when to retry', async () => {
    const limit = 20;
    const edges = await Promise.all([0, 1, 2].map(() => startEdge(env, { RATE_LIMIT_PER_MINUTE: String(limit) })));
    try {
      const token = (await enrollment.admin.issueToken('student@test')).token;
      const agents = await Promise.all(edges.map((e) => connectAgent('v2', `${e.url}/mcp`, token)));
      // 3 × 20 calls at once, spread over the replicas: only the limit passes.
      const results = await Promise.all(
        Array.from({ length: 3 * limit }, (_, i) => agents[i % 3].callTool('whoami', {})),
      );
      const passed = results.filter((r) => !r.isError).length;
      const refused = results.filter((r) => r.isError);
      expect(passed).toBe(limit);
      for (const r of refused) {
        expect(text(r)).toContain(phraseFor(429));
        const error = (r.structuredContent as { error: { code: string; retry_after: number } }).error;
        expect(error.code).toBe('rate_limited');
        expect(error.retry_after).toBeGreaterThan(0);
        expect(error.retry_after).toBeLessThanOrEqual(60);
      }
      // Another token has its own window.
      const other = (await enrollment.admin.issueToken('student@test')).token;
      const fresh = await connectAgent('v2', `${edges[1].url}/mcp`, other);
      expect((await fresh.callTool('whoami', {})).isError).toBeFalsy();
      await fresh.close();
      await Promise.all(agents.map((a) => a.close()));
    } finally {
      await Promise.all(edges.map((e) => e.close()));
    }
  });
});
