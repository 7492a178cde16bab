import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';

// How the edge answers on the wire: 2025-era exchanges (what SDK 1.x and 2.x clients negotiate by
// default) get plain JSON; 2026-07-28 exchanges go through the SDK's createMcpHandler.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let token: string;

beforeAll(async () => {
  env = await createTestEnv('edge-legacy-json');
  enrollment = await startEnrollment(env);
  edge = await startEdge(env);
  await enrollment.admin.upsertUser('student@test', 'Анна "Ученица"', ['Student']);
  token = (await enrollment.admin.issueToken('student@test')).token;
});

afterAll(async () => {
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

/** A 2025-era POST as a stateless client sends it after initialize (a null header is left out). */
function post(body: unknown, extra: Record<string, string | null> = {}) {
  const headers: Record<string, string | null> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...extra,
  };
  const sent = Object.entries(headers).filter((h): h is [string, string] => h[1] !== null);
  return fetch(`${edge.url}/mcp`, { method: 'POST', headers: sent, body: JSON.stringify(body) });
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('2025-era exchanges', () => {
  it('a tools/call is answered with one JSON body, not an SSE stream', async () => {
    const stackLimit = Error.stackTraceLimit;
    const res = await post(call(3, 'whoami'));
    expect(res.status).toBe(200);
    // The close that skips the SDK's unused error stacks gives the process its limit back.
    expect(Error.stackTraceLimit).toBe(stackLimit);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    const message = JSON.parse(body);
    expect(body).toBe(JSON.stringify(message));
    expect(message).toMatchObject({ jsonrpc: '2.0', id: 3 });
    const { content, structuredContent } = message.result;
    expect(structuredContent).toMatchObject({ ok: true, data: { user: 'student@test', full_name: 'Анна "Ученица"' } });
    expect(content).toEqual([{ type: 'text', text: JSON.stringify(structuredContent.data) }]);
  });

  it('a refusal is JSON too, with the error in structuredContent', async () => {
    const res = await post(call(4, 'set_space', { space: 'globex' }));
    expect(res.headers.get('content-type')).toBe('application/json');
    const { result } = await res.json();
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ ok: false, error: { code: 'space_not_available' } });
  });

  it('initialize and a batch get JSON, a notification 202', async () => {
    const init = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { 'mcp-protocol-version': null },
    );
    expect(init.headers.get('content-type')).toBe('application/json');
    expect((await init.json()).result.protocolVersion).toBe('2025-11-25');
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    // 2025-03-26 has JSON-RPC batches; so does a client without the version header (its default).
    for (const version of ['2025-03-26', null]) {
      const batch = await post([call(5, 'whoami'), call(6, 'whoami')], { 'mcp-protocol-version': version });
      expect(batch.headers.get('content-type')).toBe('application/json');
      expect(((await batch.json()) as Array<{ id: number }>).map((m) => m.id).sort()).toEqual([5, 6]);
    }
  });

  it('a batch under a protocol version that dropped batching is refused as an invalid request', async () => {
    for (const version of ['2025-06-18', '2025-11-25', '2026-07-28']) {
      const batch = await post([call(7, 'whoami'), call(8, 'set_space', { space: 'personal' })], {
        'mcp-protocol-version': version,
      });
      expect(batch.status).toBe(400);
      const body = await batch.json();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(body.error.message).toContain(version);
    }
  });

  it('GET and DELETE are 405 (stateless: no sessions, no standalone stream), after authentication', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${edge.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed.' },
        id: null,
      });
    }
    expect((await fetch(`${edge.url}/mcp`, { headers: { accept: 'text/event-stream' } })).status).toBe(401);
  });

  it('a body that is not JSON is refused with 415', async () => {
    const res = await post('hello', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
  });
});

describe('2026-07-28 exchanges', () => {
  it('a client pinned to the modern revision is served by the SDK handler', async () => {
    const client = new Client({ name: 'modern', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as never);
    const requestInit = { headers: { Authorization: `Bearer ${token}` } };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${edge.url}/mcp`), { requestInit }));
    const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { structuredContent?: unknown };
    expect(result.structuredContent).toMatchObject({ ok: true, data: { user: 'student@test' } });
    await client.close();
  });
});
