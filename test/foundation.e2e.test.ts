import { phraseFor } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, type SdkVersion, text } from './support/clients.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnv('foundation');
  enrollment = await startEnrollment(env);
  edge = await startEdge(env);
  const a = enrollment.admin;
  await a.upsertUser('student@test', 'Анна Ученица', ['Student']);
  await a.upsertUser('curator@test', 'Кира Куратор', ['Course Creator']);
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('frozen', 'Заморозка');
  await a.addMember('acme', 'student@test', 'member');
  await a.addMember('frozen', 'student@test', 'manager');
  await a.setSuspended('frozen', true);
  tokens.student = (await a.issueToken('student@test')).token;
  tokens.reader = (await a.issueToken('student@test', { scope: 'read' })).token;
  tokens.curator = (await a.issueToken('curator@test')).token;
});

afterAll(async () => {
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe.each<SdkVersion>(['v1', 'v2'])('through the edge with the %s SDK client', (version) => {
  let student: AgentClient;
  beforeAll(async () => {
    student = await connectAgent(version, `${edge.url}/mcp`, tokens.student);
  });
  afterAll(async () => {
    await student.callTool('set_space', { space: 'personal' });
    await student.close();
  });

  it('lists the 29 student tools in a fixed order', async () => {
    const { tools } = await student.listTools();
    expect(tools).toHaveLength(29);
    expect(tools[0].name).toBe('artifact');
    expect(tools.at(-1)?.name).toBe('whoami');
    expect(tools.map((t) => t.name)).toContain('set_space');
    expect(tools.map((t) => t.name)).toContain('fill_document');
  });

  it('whoami shows the account, organizations with roles and suspension, and the space', async () => {
    const result = await student.callTool('whoami', {});
    expect(result.isError).toBeFalsy();
    const expected = {
      user: 'student@test',
      full_name: 'Анна Ученица',
      organizations: [
        { name: 'acme', title: 'Акме', role: 'member', suspended: false },
        { name: 'frozen', title: 'Заморозка', role: 'manager', suspended: true },
      ],
      space: 'personal',
    };
    expect(result.structuredContent).toEqual({ ok: true, data: expected });
    expect(JSON.parse(text(result))).toEqual(expected);
  });

  it('set_space selects an organization and whoami reports it', async () => {
    const result = await student.callTool('set_space', { space: 'acme' });
    expect(result.structuredContent).toEqual({ ok: true, data: { current: 'acme' } });
    const who = await student.callTool('whoami', {});
    expect(data(who).space).toBe('acme');
  });

  it('set_space refuses an organization the student is not in', async () => {
    const result = await student.callTool('set_space', { space: 'globex' });
    expect(result.isError).toBe(true);
    const sc = result.structuredContent as { ok: boolean; error: { code: string; available: string[] } };
    expect(sc.ok).toBe(false);
    expect(sc.error.code).toBe('space_not_available');
    expect(sc.error.available).toEqual(['personal', 'acme']);
    expect(text(result)).toMatch(
      /^Пространства «globex» у ученика нет.* \[space_not_available\] space: "globex" available: \["personal", "acme"\]$/,
    );
  });

  it('set_space refuses a suspended organization', async () => {
    const result = await student.callTool('set_space', { space: 'frozen' });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe('space_not_available');
    expect(text(result)).toContain('приостановлена');
  });

  it('malformed arguments get a clear error and change nothing', async () => {
    const before = data(await student.callTool('whoami', {})).space;
    const result = await student.callTool('set_space', { space: 42 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Аргументы не подходят инструменту set_space: space .*\[invalid_arguments\] fields: \[\{"field": "space", "problem": "Неверный ввод/,
    );
    const missing = await student.callTool('set_space', {});
    expect(missing.isError).toBe(true);
    expect((missing.structuredContent as { error: { code: string } }).error.code).toBe('invalid_arguments');
    const { tools } = await student.listTools();
    const schema = (tools.find((t) => t.name === 'set_space') as unknown as { inputSchema: { required?: string[] } })
      .inputSchema;
    expect(schema.required).toEqual(['space']);
    expect(data(await student.callTool('whoami', {})).space).toBe(before);
  });
});

describe('access', () => {
  it('a read-scoped token reads but cannot call a write tool, and the attempt is audited', async () => {
    const reader = await connectAgent('v2', `${edge.url}/mcp`, tokens.reader);
    expect((await reader.callTool('whoami', {})).isError).toBeFalsy();
    const result = await reader.callTool('set_space', { space: 'acme' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(phraseFor(403));
    await reader.close();
    const rows = await edge.database.db
      .selectFrom('audit_log')
      .select(['kind', 'user_id', 'tool'])
      .where('kind', '=', 'write_with_read_token')
      .execute();
    expect(rows).toEqual([{ kind: 'write_with_read_token', user_id: 'student@test', tool: 'set_space' }]);
  });

  it('/authoring lists the 15 tools of the spec and the 5 of homework review for a curator', async () => {
    const curator = await connectAgent('v1', `${edge.url}/authoring`, tokens.curator);
    const { tools } = await curator.listTools();
    expect(tools).toHaveLength(20);
    expect(tools[0].name).toBe('add_note');
    await curator.close();
  });

  it('/authoring without an author role is HTTP 403 before MCP, written to the audit log', async () => {
    const res = await fetch(`${edge.url}/authoring`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.student}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toBe(phraseFor(403));
    const rows = await edge.database.db
      .selectFrom('audit_log')
      .select(['kind', 'user_id', 'endpoint'])
      .where('kind', '=', 'author_role_required')
      .execute();
    expect(rows).toEqual([{ kind: 'author_role_required', user_id: 'student@test', endpoint: '/authoring' }]);
  });

  it('an unknown, revoked or expired token is 401 with the re-authorization phrase', async () => {
    const post = (token: string) =>
      fetch(`${edge.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
      });
    const unknown = await post('stu_nope');
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).error.message).toBe(phraseFor(401));

    const issued = await enrollment.admin.issueToken('student@test');
    expect((await post(issued.token)).status).toBe(200);
    await enrollment.admin.revokeToken(issued.id);
    // The revocation reaches the edge's cache over NATS; no TTL wait.
    await new Promise((r) => setTimeout(r, 100));
    expect((await post(issued.token)).status).toBe(401);

    const expired = await enrollment.admin.issueToken('student@test', {
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect((await post(expired.token)).status).toBe(401);

    const missing = await fetch(`${edge.url}/mcp`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('a foreign Host header is refused (DNS-rebinding protection)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${edge.url}/healthz`, { headers: { host: 'evil.example' } }, (res) =>
        resolve(res.statusCode ?? 0),
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('a browser Origin that is not allowed is refused; an allowed one passes', async () => {
    const post = (origin: string) =>
      fetch(`${edge.url}/mcp`, {
        method: 'POST',
        headers: {
          origin,
          authorization: `Bearer ${tokens.student}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await post('https://evil.example')).status).toBe(403);
    expect((await post('http://localhost:5173')).status).toBe(200);
  });

  it('health, readiness and metrics', async () => {
    expect((await fetch(`${edge.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${edge.url}/readyz`);
    expect(ready.status).toBe(200);
    const metrics = await (await fetch(`${edge.url}/metrics`)).text();
    expect(metrics).toContain('studium_tool_calls_total');
  });
});

describe('failures', () => {
  it('a stopped enrollment becomes the "service unavailable" phrase within the request timeout', async () => {
    const student = await connectAgent('v2', `${edge.url}/mcp`, tokens.student);
    await enrollment.stop();
    try {
      const started = Date.now();
      const result = await student.callTool('whoami', {});
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(phraseFor(503));
      expect(Date.now() - started).toBeLessThan(1500 + 1000);
    } finally {
      await enrollment.restart();
      await student.close();
    }
  });

  it('too many calls per token get the 429 phrase', async () => {
    const limited = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '6' });
    try {
      const token = (await enrollment.admin.issueToken('student@test')).token;
      const client = await connectAgent('v2', `${limited.url}/mcp`, token);
      const results = [];
      for (let i = 0; i < 6; i++) results.push(await client.callTool('whoami', {}));
      // Connecting took its share too (initialize and the initialized notification count).
      const passed = results.filter((r) => !r.isError).length;
      expect(passed).toBeGreaterThanOrEqual(1);
      expect(passed).toBeLessThanOrEqual(4);
      expect(results.slice(0, passed).every((r) => !r.isError)).toBe(true);
      expect(text(results[5])).toMatch(new RegExp(`^${phraseFor(429)} \\[rate_limited\\] retry_after: \\d+$`));
      const retryAfter = (results[5].structuredContent as { error: { retry_after: number } }).error.retry_after;
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      await client.close();
    } finally {
      await limited.close();
    }
  });

  it('choose answers with the text fallback for a client without MCP Apps, and a card for one with it', async () => {
    const plain = await connectAgent('v1', `${edge.url}/mcp`, tokens.student);
    const fallback = await plain.callTool('choose', { prompt: 'С чего начнём?', options: ['Тема', 'Моя задача'] });
    expect(fallback.isError).toBeFalsy();
    expect(data(fallback).shown).toBe('text');
    expect(String(data(fallback).next)).toContain('словами');
    await plain.close();

    const token = (await enrollment.admin.issueToken('student@test')).token;
    const apps = await connectAgent('v1', `${edge.url}/mcp`, token, {
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
    });
    const { tools } = await apps.listTools();
    const chooseTool = tools.find((t) => t.name === 'choose') as { _meta?: { ui?: { resourceUri?: string } } };
    expect(chooseTool._meta?.ui?.resourceUri).toBe('ui://studium/choose.html');
    const card = await apps.callTool('choose', { prompt: 'С чего начнём?', options: ['Тема', 'Моя задача'] });
    expect(data(card).shown).toBe('card');
    await apps.close();
  });
});
