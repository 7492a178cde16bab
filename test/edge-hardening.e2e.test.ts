import { request } from 'node:http';
import { Writable } from 'node:stream';
import { course_outline, phraseFor } from '@studium/contracts';
import { createBus } from '@studium/platform';
import { createTestEnv, EDGE_TRUST, type TestEnv } from '@studium/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../services/edge/src/auth.ts';
import { connectAgent, text } from './support/clients.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;

beforeAll(async () => {
  env = await createTestEnv('edge-hardening');
  enrollment = await startEnrollment(env);
  await enrollment.admin.upsertUser('student@test', 'Анна Ученица', ['Student']);
  await enrollment.admin.upsertUser('curator@test', 'Кира Куратор', ['Course Creator']);
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
      // Every MCP message counts, not only tool calls: each agent's initialize and initialized
      // notification (and the tools/list the client sends before its first call) took a share.
      expect(passed).toBeLessThanOrEqual(limit - 2 * 3);
      expect(passed).toBeGreaterThanOrEqual(limit - 4 * 3);
      for (const r of refused) {
        expect(text(r)).toContain(phraseFor(429));
        const error = (r.structuredContent as { error: { code: string; retry_after: number } }).error;
        expect(error.code).toBe('rate_limited');
        expect(error.retry_after).toBeGreaterThan(0);
        expect(error.retry_after).toBeLessThanOrEqual(60);
      }
      // Another token has its own window. One call at a time, round robin over the replicas: each
      // replica leases a few calls ahead, so the limit may be under-used by a few, never passed.
      const other = (await enrollment.admin.issueToken('student@test')).token;
      const others = await Promise.all(edges.map((e) => connectAgent('v2', `${e.url}/mcp`, other)));
      let sequential = 0;
      for (let i = 0; i < 2 * limit; i++) {
        if (!(await others[i % 3].callTool('whoami', {})).isError) sequential++;
      }
      expect(sequential).toBeLessThanOrEqual(limit - 2 * 3);
      expect(sequential).toBeGreaterThanOrEqual(limit - 3 - 4 * 3);
      await Promise.all([...agents, ...others].map((a) => a.close()));
    } finally {
      await Promise.all(edges.map((e) => e.close()));
    }
  });
});

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

const rpc = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

function post(url: string, token: string | null, body: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body,
  });
}

describe('the HTTP layer', () => {
  let edge: Awaited<ReturnType<typeof startEdge>>;
  let captured: ReturnType<typeof capturedLogger>;
  beforeAll(async () => {
    captured = capturedLogger();
    edge = await startEdge(env, { AUDIT_PER_MINUTE: '3' }, captured.log);
  });
  afterAll(async () => {
    await edge?.close();
  });

  it('authenticates before reading the body: a client without a token is answered while its body is still unsent', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${edge.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
      });
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(401);
  });

  it('an MCP body over its limit is 413 with a JSON-RPC error, not the outage phrase; a large tool call within it passes', async () => {
    const token = (await enrollment.admin.issueToken('curator@test')).token;
    const huge = await post(
      `${edge.url}/authoring`,
      token,
      rpc(1, 'create_course', { title: 'я'.repeat(600_000), summary: 'x' }),
    );
    expect(huge.status).toBe(413);
    const body = await huge.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(body.error.message).toContain('512');
    expect(JSON.stringify(body)).not.toContain(phraseFor(503));
    // 100 000 Cyrillic characters (about 200 KB): the edge reads it and refuses the field by its limit.
    const big = await post(
      `${edge.url}/authoring`,
      token,
      rpc(2, 'create_course', { title: 'я'.repeat(100_000), summary: 'x' }),
    );
    expect(big.status).toBe(200);
    const malformed = await post(`${edge.url}/authoring`, token, '{"jsonrpc": "2.0", "id": 3, "method"');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect((await big.json()).result.structuredContent.error).toMatchObject({
      code: 'invalid_arguments',
      fields: [{ field: 'title' }],
    });
  });

  it('an unexpected error in a tool call is logged with the request id and reaches the agent as the outage phrase', async () => {
    // A broken service answering on a tool's subject with a reply that is not JSON.
    const lessons = await env.as('lessons');
    const sub = lessons.subscribe(`${env.prefix}.${course_outline.subject}`, {
      callback: (_err, msg) => msg.respond(new TextEncoder().encode('{not json')),
    });
    await lessons.flush();
    try {
      const token = (await enrollment.admin.issueToken('student@test')).token;
      const res = await post(`${edge.url}/mcp`, token, rpc(3, 'course_outline', { course: 'c1' }));
      const { result } = await res.json();
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toBe(phraseFor(503));
      const line = captured.lines.find((l) => l.msg === 'tool call crashed');
      expect(line).toMatchObject({ level: 50, tool: 'course_outline', user: 'student@test' });
      expect(typeof line?.reqId).toBe('string');
      expect((line?.err as { type?: string })?.type).toBe('SyntaxError');
    } finally {
      sub.unsubscribe();
    }
  });

  it('access violations are written at most the per-minute limit per user: a flood cannot fill the audit log', async () => {
    const token = (await enrollment.admin.issueToken('student@test')).token;
    const statuses = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await post(`${edge.url}/authoring`, token, rpc(i, 'list_courses', {}))).status);
    }
    expect(statuses.every((s) => s === 403)).toBe(true);
    const rows = await edge.database.db
      .selectFrom('audit_log')
      .select(['kind', 'user_id'])
      .where('kind', '=', 'author_role_required')
      .execute();
    expect(rows).toHaveLength(3);
    const metrics = await (await fetch(`${edge.url}/metrics`)).text();
    expect(metrics).toMatch(/^studium_audit_suppressed_total\{[^}]*\} 7$/m);
  });
});

describe('the token cache', () => {
  it('is a bounded LRU, and remembers a refused token briefly', async () => {
    // The edge's trust: it checks enrollment's signature on each token lookup.
    const bus = createBus(env.nc, { prefix: env.prefix, timeoutMs: 1000, log: env.log, trust: EDGE_TRUST });
    const auth = new Authenticator(bus, { ttlMs: 60_000, maxEntries: 2, negativeTtlMs: 60_000 });
    auth.start();
    try {
      const tokens = [];
      for (let i = 0; i < 3; i++) tokens.push((await enrollment.admin.issueToken('student@test')).token);
      for (const t of tokens) expect((await auth.authenticate(`Bearer ${t}`)).ok).toBe(true);
      expect(auth.size).toBe(2);
      // tokens[1] used again: tokens[2] is now the least recently used of the two kept.
      expect((await auth.authenticate(`Bearer ${tokens[1]}`)).ok).toBe(true);
      expect(await auth.authenticate('Bearer stu_unknown')).toMatchObject({ ok: false, status: 401 });

      // With enrollment away, only what the cache holds is answered without it.
      await enrollment.stop();
      try {
        expect((await auth.authenticate(`Bearer ${tokens[1]}`)).ok).toBe(true);
        expect((await auth.authenticate(`Bearer ${tokens[2]}`)).ok).toBe(true);
        expect(await auth.authenticate(`Bearer ${tokens[0]}`)).toMatchObject({ ok: false, status: 503 });
        expect(await auth.authenticate('Bearer stu_unknown')).toMatchObject({ ok: false, status: 401 });
        expect(await auth.authenticate('Bearer stu_other')).toMatchObject({ ok: false, status: 503 });
      } finally {
        await enrollment.restart();
      }
    } finally {
      auth.stop();
    }
  });
});
