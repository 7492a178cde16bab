import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { phraseFor } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_TIMEOUT_MESSAGE } from '../services/edge/src/body.ts';
import { connectAgent, type ToolResult } from './support/clients.ts';
import { startLessons } from './support/lessons.ts';
import { bigJson, sendRaw, trickle } from './support/raw-http.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

// Issue 17 point 3: every request the edge reads is bounded — by bytes as they arrive whatever the
// framing, by depth, by time — and an early refusal closes the connection instead of reading on;
// every MCP message counts against the rate limit; ids and numbers are bounded in the schemas.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let student: string;
let curator: string;

beforeAll(async () => {
  env = await createTestEnv('request-bounds');
  enrollment = await startEnrollment(env);
  lessons = await startLessons(env);
  edge = await startEdge(env, { HTTP_BODY_IDLE_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '3000' });
  await enrollment.admin.upsertUser('student@rb', 'Анна Ученица', ['Student']);
  await enrollment.admin.upsertUser('curator@rb', 'Кира Куратор', ['Student', 'Course Creator']);
  student = (await enrollment.admin.issueToken('student@rb')).token;
  curator = (await enrollment.admin.issueToken('curator@rb')).token;
}, 60_000);

afterAll(async () => {
  await edge?.close();
  await lessons?.close();
  await enrollment?.close();
  await env?.cleanup();
});

const MB = 1024 * 1024;
/** The MCP endpoints' default body limit (MCP_BODY_LIMIT_KB). */
const MCP_BODY_LIMIT = 512 * 1024;
const headers = (token: string | null, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-03-26',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
  ...extra,
});
const call = (name: string, args: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const post = (path: string, token: string | null, body: unknown) =>
  fetch(`${edge.url}${path}`, { method: 'POST', headers: headers(token), body: JSON.stringify(body) });

/** Peak RSS growth of this process (the edge runs in it) while `run` goes. */
async function peakGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const result = await run();
    return { result, growthMb: (Math.max(peak, process.memoryUsage.rss()) - base) / MB };
  } finally {
    clearInterval(timer);
  }
}

function refusalOf(body: { result?: ToolResult }) {
  return (body.result?.structuredContent as { error?: Record<string, unknown> } | undefined)?.error;
}

describe('bodies are counted as they arrive, whatever the framing', () => {
  it('a chunked 50 MB tool call on /mcp is refused with the edge’s memory bounded', async () => {
    const prefix = JSON.stringify(call('choose', { prompt: 'x', options: ['a', 'b'], title: '' })).replace(
      '"title":""',
      '"title":"',
    );
    const { result, growthMb } = await peakGrowth(() =>
      sendRaw(edge.url, {
        path: '/mcp',
        headers: headers(student),
        chunked: true,
        body: () => bigJson(prefix, 50 * MB, '"}}}'),
      }),
    );
    expect(result.status).toBe(413);
    expect(result.response).toContain('-32600');
    expect(result.response).not.toContain(phraseFor(503));
    // The body is read once as text and refused before it is parsed (no copies, no validation).
    expect(growthMb).toBeLessThan(160);
  });

  it.each(['/authoring', '/kb', '/mcp'])(
    'a chunked body past the limit on %s is cut off at the limit, not read to its end',
    async (path) => {
      const limitMb = path === '/mcp' ? 60 : 0.5;
      const { result, growthMb } = await peakGrowth(() =>
        sendRaw(edge.url, {
          path,
          headers: headers(curator),
          chunked: true,
          body: () => bigJson('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"', 200 * MB, '"}}'),
        }),
      );
      expect(result.status, JSON.stringify({ ...result, response: result.response.slice(0, 300) })).toBe(413);
      // The edge stopped reading at its limit and closed: the client got little more out.
      expect(result.sent).toBeLessThan((limitMb + 16) * MB);
      expect(growthMb).toBeLessThan(160);
    },
  );

  it('the chat stream route refuses a chunked body past its limit', async () => {
    await enrollment.admin.upsertUser('teacher@rb', 'Тимур Учитель', ['Teacher']);
    const token = (await enrollment.admin.issueToken('teacher@rb')).token;
    const result = await sendRaw(edge.url, {
      path: '/v1/ai-chat/stream',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      chunked: true,
      body: () => bigJson('{"message":"', 20 * MB, '"}'),
    });
    expect(result.status).toBe(422);
    expect(result.sent).toBeLessThan(17 * MB);
  });

  it('a chunked body on /oauth/token is refused at oidc-provider’s limit and the connection closed', async () => {
    const result = await sendRaw(edge.url, {
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      chunked: true,
      body: () => bigJson('grant_type=', 50 * MB, ''),
    });
    // oidc-provider's own answer to a body over its limit.
    expect([400, 413]).toContain(result.status);
    expect(result.sent).toBeLessThan(17 * MB);
  });

  it('an unauthenticated 50 MB body gets 401 and its connection is closed, not read to the end', async () => {
    for (const path of ['/mcp', '/authoring', '/kb', '/v1/ai-chat/stream']) {
      const result = await sendRaw(edge.url, {
        path,
        headers: { ...headers(null), 'content-length': String(50 * MB) },
        body: () => bigJson('', 50 * MB, ''),
      });
      expect(result.status, path).toBe(401);
      expect(result.response.toLowerCase(), path).toContain('connection: close');
      expect(result.sent, path).toBeLessThan(45 * MB);
    }
  });
});

describe('depth', () => {
  it.each(['/mcp', '/authoring', '/kb'])(
    'JSON nested 5,000 deep on %s is refused by depth before validation',
    async (path) => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      for (const body of [
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"x":${deep}}}}`,
        deep,
        `{"a":${'{"a":'.repeat(5000)}1${'}'.repeat(5001)}`,
      ]) {
        const res = await fetch(`${edge.url}${path}`, { method: 'POST', headers: headers(curator), body });
        const text = await res.text();
        expect(res.status).toBe(400);
        expect(JSON.parse(text)).toMatchObject({ error: { code: -32700 } });
        expect(text).toContain('вложенность');
        expect(text).not.toContain('Maximum call stack');
        expect(text).not.toContain(phraseFor(503));
      }
    },
  );

  it('brackets inside strings do not count as depth', async () => {
    const res = await post('/mcp', student, call('choose', { prompt: '['.repeat(1500), options: ['{{{', ']]]'] }));
    expect(res.status).toBe(200);
  });
});

describe('time', () => {
  it('a body that stops arriving is answered 408 and loses its connection after the idle timeout, also on /oauth/token and /login', async () => {
    for (const [path, type] of [
      ['/mcp', 'application/json'],
      ['/oauth/token', 'application/x-www-form-urlencoded'],
      ['/login', 'application/x-www-form-urlencoded'],
      ['/api/student/tools/whoami', 'application/json'],
    ] as const) {
      const result = await sendRaw(edge.url, {
        path,
        headers: { ...headers(path === '/mcp' ? student : null), 'content-type': type, 'content-length': '1000' },
        body: () => [Buffer.from('{"jsonrpc"')],
        timeoutMs: 15_000,
      });
      expect(result.closedAfterMs, path).toBeLessThan(5_000);
      // The web API answers a request without a session before its body (401); the others wait for it.
      expect(result.status, path).toBe(path.startsWith('/api/') ? 401 : 408);
      if (result.status === 408) {
        expect(result.response).toMatch(/\r\nconnection: close\r\n/i);
        expect(Buffer.from(result.response, 'latin1').toString()).toContain(BODY_TIMEOUT_MESSAGE);
      }
    }
  });

  it.each([
    ['/oauth/token', 'application/x-www-form-urlencoded'],
    ['/mcp', 'application/json'],
  ])('a slow trickle on %s that never pauses long is answered 408 at the request timeout', async (path, type) => {
    const result = await sendRaw(edge.url, {
      path,
      headers: { ...headers(path === '/mcp' ? student : null), 'content-type': type, 'content-length': '5000' },
      body: () => trickle(Buffer.alloc(5000, 'a'), 200),
      timeoutMs: 20_000,
    });
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(2_500);
    expect(result.closedAfterMs).toBeLessThan(10_000);
    expect(result.sent).toBeLessThan(5000);
    expect(result.status).toBe(408);
    expect(Buffer.from(result.response, 'latin1').toString()).toContain(BODY_TIMEOUT_MESSAGE);
  });
});

describe('rate limit and methods', () => {
  it('batches are bounded, and every message of one counts against the limit', async () => {
    const limited = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '20' });
    try {
      const token = (await enrollment.admin.issueToken('student@rb')).token;
      const batch = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
      const send = (n: number) =>
        fetch(`${limited.url}/mcp`, { method: 'POST', headers: headers(token), body: JSON.stringify(batch(n)) });
      const tooBig = await send(17);
      expect(tooBig.status).toBe(400);
      expect(await tooBig.json()).toMatchObject({ error: { code: -32600 } });
      expect((await send(16)).status).toBe(200);
      const second = await send(16);
      expect(second.status).toBe(429);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await second.json()).toMatchObject({ error: { message: phraseFor(429) } });
      // initialize is a message like any other, and tool calls share the window (in-band rate_limited).
      expect(await connectAgent('v2', `${limited.url}/mcp`, token).catch(() => null)).toBeNull();
      const callRes = await fetch(`${limited.url}/mcp`, {
        method: 'POST',
        headers: headers(token),
        body: JSON.stringify(call('whoami', {})),
      });
      expect(refusalOf(await callRes.json())).toMatchObject({ code: 'rate_limited' });
    } finally {
      await limited.close();
    }
  });

  it('invalid calls count too', async () => {
    const limited = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const token = (await enrollment.admin.issueToken('student@rb')).token;
      const codes: unknown[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await fetch(`${limited.url}/mcp`, {
          method: 'POST',
          headers: headers(token),
          body: JSON.stringify(call('mark_goal', {})),
        });
        codes.push(refusalOf(await res.json())?.code);
      }
      expect(codes.slice(0, 5).every((c) => c === 'invalid_arguments')).toBe(true);
      expect(codes.slice(5)).toEqual(['rate_limited', 'rate_limited']);
    } finally {
      await limited.close();
    }
  });

  it('past the limit, a large body is refused unread (429), a small call still gets the in-band rate_limited', async () => {
    const limited = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const token = (await enrollment.admin.issueToken('student@rb')).token;
      const big = JSON.stringify(
        call('create_notes', { project: 'p', notes: Array.from({ length: 244_000 }, () => 1) }),
      );
      const send = (body: string, path = '/kb') =>
        fetch(`${limited.url}${path}`, { method: 'POST', headers: headers(token), body });
      // Within the limit the large call is read and answered (its arguments are refused).
      expect(refusalOf(await (await send(big)).json())?.code).toBe('invalid_arguments');
      for (let i = 0; i < 5; i++) await (await send(JSON.stringify(call('whoami', {})), '/mcp')).text();
      // Over it: a small call is the tool's refusal, as before.
      expect(refusalOf(await (await send(JSON.stringify(call('whoami', {})), '/mcp')).json())?.code).toBe(
        'rate_limited',
      );
      // A large one is 429 before its bytes are read, with the wait, by Content-Length and chunked.
      const res = await send(big);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toMatchObject({ error: { code: -32000, message: phraseFor(429) } });
      const chunked = await sendRaw(limited.url, {
        path: '/kb',
        headers: headers(token),
        chunked: true,
        body: () => [Buffer.from(big)],
      });
      expect(chunked.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('an unknown tool is JSON-RPC −32602 «Unknown tool»', async () => {
    for (const path of ['/mcp', '/authoring', '/kb']) {
      const body = await (await post(path, curator, call('no_such_tool', {}, 'u1'))).json();
      expect(body).toMatchObject({ id: 'u1', error: { code: -32602 } });
      expect(body.error.message).toContain('Unknown tool');
    }
  });

  it('invalid_arguments names the first few fields and counts the rest: a huge bad call gets a small reply', async () => {
    const options = Array.from({ length: 20_000 }, (_, i) => i);
    const res = await post('/mcp', student, call('choose', { prompt: 'x', options }));
    const text = await res.text();
    expect(text.length).toBeLessThan(8_000);
    const error = refusalOf(JSON.parse(text));
    // A large call is checked until its first few problems (services/edge/src/mcp/arguments.ts).
    expect(error).toMatchObject({ code: 'invalid_arguments', more: true });
    expect(error?.fields).toHaveLength(5);
    expect(String(error?.message)).toContain('options.0, options.1, options.2, options.3, options.4 и другие');
  });

  it('a 488 KB invalid create_notes costs the edge a few times its bytes, not hundreds of MB; three at once neither, and whoami stays quick', async () => {
    // The reviewer's call: every note a number (240,000 values where objects belong).
    const bad = call('create_notes', { project: 'p', notes: Array.from({ length: 244_000 }, () => 1) });
    const bytes = JSON.stringify(bad).length;
    expect(bytes).toBeGreaterThan(480_000);
    expect(bytes).toBeLessThan(MCP_BODY_LIMIT);
    const { result, growthMb } = await peakGrowth(() => post('/kb', student, bad).then((r) => r.text()));
    const error = refusalOf(JSON.parse(result));
    expect(error).toMatchObject({ code: 'invalid_arguments', more: true });
    expect(error?.fields).toHaveLength(5);
    // The refusal is bounded: five fields and their rules, no value echoed.
    expect(result.length).toBeLessThan(4_000);
    expect(result).not.toContain('1,1,1');
    // zod alone grew the edge by ~220 MB for this call (issue 30); now the body, its parse and a
    // few issues. The bound is generous for the test's shared process (GC timing, other files).
    expect(growthMb).toBeLessThan(40);
    // Three at once, with a whoami beside them.
    const { result: all, growthMb: threeMb } = await peakGrowth(async () => {
      const calls = [0, 1, 2].map(() => post('/kb', student, bad).then((r) => r.text()));
      const started = performance.now();
      const who = await post('/mcp', student, call('whoami', {}));
      const whoMs = performance.now() - started;
      return { texts: await Promise.all(calls), whoStatus: who.status, whoMs };
    });
    for (const t of all.texts) expect(refusalOf(JSON.parse(t))).toMatchObject({ code: 'invalid_arguments' });
    expect(all.whoStatus).toBe(200);
    expect(all.whoMs).toBeLessThan(1_000);
    expect(threeMb).toBeLessThan(60);
  });
});

describe('ids and numbers', () => {
  it('ids with control characters are the spec’s refusal, at once, never the outage phrase', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['mark_goal', { session: 'a\nb', goal: 'g', status: 'done', evidence: 'e' }, 'not_your_session'],
      ['complete_lesson', { session: 's\r\nX-Evil: 1' }, 'not_your_session'],
      ['request_quiz', { session: '\u0007' }, 'not_your_session'],
      ['lesson_item', { session: 's\n', goal: 'g' }, 'not_your_session'],
      ['submit_answer', { attempt: 'a\nb', question: 'q', answer: 'x', student_words: 'x' }, 'not_your_session'],
      ['mark_goal', { session: 's', goal: 'g\u001b[31m', status: 'done', evidence: 'e' }, 'goal_unknown'],
      ['course_outline', { course: 'c\nd' }, 'invalid_arguments'],
    ];
    for (const [name, args, code] of cases) {
      const started = Date.now();
      const body = await (await post('/mcp', student, call(name, args))).json();
      expect(refusalOf(body), name).toMatchObject({ code });
      expect(JSON.stringify(body)).not.toContain(phraseFor(503));
      expect(Date.now() - started, name).toBeLessThan(2_000);
    }
  });

  it('goal_runs with start ≥ 2^63 is invalid_page, as a number and as a string', async () => {
    for (const start of [2 ** 63, '9223372036854775808', 1e12]) {
      const body = await (await post('/authoring', curator, call('goal_runs', { course: 'c', start }))).json();
      expect(refusalOf(body), String(start)).toMatchObject({ code: 'invalid_page', where: 'start' });
    }
  });

  type Props = Record<string, unknown>;
  it('the bounds are visible in tools/list', async () => {
    const agent = await connectAgent('v2', `${edge.url}/authoring`, curator);
    const { tools } = await agent.listTools();
    await agent.close();
    const props = (name: string) =>
      (tools.find((t) => t.name === name) as unknown as { inputSchema: { properties: Record<string, Props> } })
        .inputSchema.properties;
    const start = props('goal_runs').start as { anyOf: Array<Record<string, unknown>> };
    expect(start.anyOf.find((s) => s.type === 'number')).toMatchObject({ maximum: 1e9 });
    // The identifiers' control-character pattern is applied to every call but no longer listed
    // (issue 31: it told a model nothing, at 2 KB of /mcp's tools/list); the limit is listed.
    expect(props('goal_runs').course).toMatchObject({ maxLength: 128 });
    expect(props('goal_runs').course).not.toHaveProperty('pattern');
    const body = await (await post('/authoring', curator, call('goal_runs', { course: 'crs\u0007x' }))).json();
    expect(refusalOf(body)).toMatchObject({ code: 'course_not_found', field: 'course' });
  });
});

describe('chat routes', () => {
  it('check the token before the body: no token is 401 whatever the body', async () => {
    for (const body of ['{"message": 1}', 'not json', '']) {
      const res = await fetch(`${edge.url}/v1/ai-chat/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(401);
    }
  });
});

describe('file-URL key at start-up', () => {
  const root = resolve(import.meta.dirname, '..');
  const run = (entry: string, env: Record<string, string | undefined>) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((done) => {
      const { FILE_URL_SECRET: _s, STUDIUM_ENV: _e, ...rest } = process.env;
      const child = spawn(resolve(root, 'node_modules/.bin/tsx'), [resolve(root, entry)], {
        env: { ...rest, ...env, NATS_URL: 'nats://127.0.0.1:1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // The refusal is one fatal log line (stdout), as every start-up refusal is.
      let stderr = '';
      const take = (d: Buffer) => {
        stderr += String(d);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      // Generous: under a loaded full run tsx's start of the edge once took over 20 s (killed with
      // no output); a refusal comes well before this, a start that hangs still fails (signal).
      const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        done({ code, signal, stderr });
      });
    });

  it.each(['services/edge/src/main.ts', 'services/homework/src/main.ts'])(
    '%s refuses to start without a strong FILE_URL_SECRET outside development',
    async (entry) => {
      for (const [secret, reason] of [
        [undefined, 'is not set'],
        ['CHANGE_ME_TO_A_LONG_RANDOM_STRING', 'placeholder'],
        ['studium-dev-file-url-secret', 'development key'],
        ['short-key-1234567', 'weak'],
      ] as const) {
        const { code, signal, stderr } = await run(entry, { FILE_URL_SECRET: secret });
        expect(signal, `${secret}: killed, it neither refused nor started`).toBeNull();
        expect(code, String(secret)).not.toBe(0);
        expect(stderr, String(secret)).toContain('FILE_URL_SECRET');
        expect(stderr, String(secret)).toContain(reason);
        expect(stderr, String(secret)).not.toMatch(/\n\s+at /);
      }
    },
    200_000,
  );
});
