import { failurePhrase, phraseFor } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomeworkStack } from '../services/homework/test/support/stack.ts';
import { startReporting } from '../services/reporting/test/support/reporting.ts';
import { startKnowledge } from './support/knowledge.ts';
import { startLessons } from './support/lessons.ts';
import { startEdge } from './support/stack.ts';

// Property: whatever an agent sends to any tool of /mcp, /authoring and /kb — values generated from
// the tool's own listed input schema, made hostile (huge and boundary strings, control characters,
// lone surrogates, deep nesting, wrong types, boundary numbers, extra fields) — the platform
// answers with a refusal or a success: never the outage phrase or an internal error, never a hang,
// no service stops, and a refused write changes no row of any service's schema.
let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let knowledge: Awaited<ReturnType<typeof startKnowledge>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
const tokens: Record<string, string> = {};
let known: string[] = [];

/** Runs per tool; FC_RUNS raises it for a longer hunt, FC_SEED replays a failure. */
const RUNS = Number(process.env.FC_RUNS ?? 25);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

beforeAll(async () => {
  env = await createTestEnv('hostile-inputs');
  stack = await startHomeworkStack(env);
  lessons = await startLessons(env);
  knowledge = await startKnowledge(env);
  reporting = await startReporting(env);
  // The bus deadline the platform ships (5 s) instead of the tests' 1.5 s: the property forbids the
  // outage phrase, and on a loaded 2-core CI machine a stall of the busy services outlasted 1.5 s
  // once (an edit_note refused by its schema answered 503 there; alone it takes 6-60 ms).
  edge = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '0', REQUEST_TIMEOUT_MS: '5000' });
  const admin = stack.enrollment.admin;
  tokens['/mcp'] = (await admin.issueToken('anna@hw')).token;
  tokens['/kb'] = tokens['/mcp'];
  tokens['/authoring'] = (await admin.issueToken('curator@hw')).token;
  known = [stack.course, stack.lesson('l-files'), stack.lesson('l-both'), 'acme', 'personal', 'l-files'];
}, 90_000);

afterAll(async () => {
  await edge?.close();
  await reporting?.close();
  await knowledge?.close();
  await lessons?.close();
  await stack?.close();
  await env?.cleanup();
});

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

const nest = (depth: number): unknown => (depth === 0 ? 'дно' : { a: [nest(depth - 1)] });

/** Strings an attacker tries: control characters, separators, lone surrogates, injections, paths. */
const nasty = fc.constantFrom(
  'a\nb',
  's\r\nNats-Service-Error: 1',
  '\u0000',
  '\u0007\u001b[31m',
  '\u2028\u2029',
  '\uFEFF',
  '\uD800',
  '\uDFFF\uD800x',
  "'; drop table users; --",
  '../../../etc/passwd',
  '%00%0a',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '   ',
  '',
  '😀'.repeat(70),
);

function hostileString(s: JsonSchema): fc.Arbitrary<unknown> {
  const max = s.maxLength ?? 128;
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
    { weight: 3, arbitrary: nasty },
    { weight: 2, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.constant('x'.repeat(max)) },
    { weight: 1, arbitrary: fc.constant('я'.repeat(max + 1)) },
    { weight: 1, arbitrary: fc.constant('z'.repeat(Math.min(max * 4, 200_000))) },
    ...(s.enum ? [{ weight: 3, arbitrary: fc.constantFrom(...s.enum) }] : []),
  );
}

function hostileNumber(s: JsonSchema): fc.Arbitrary<unknown> {
  const edges = [0, -1, 1, 0.5, -0.5, 2 ** 31, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e308, -1e308, 1e-300];
  if (s.maximum !== undefined) edges.push(s.maximum, s.maximum + 1);
  if (s.minimum !== undefined) edges.push(s.minimum, s.minimum - 1);
  return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(...edges));
}

/** Any JSON value of the wrong kind, up to deep nesting (under and over the edge's depth bound). */
const wrongType = fc.oneof(
  fc.constantFrom(null, true, false, 0, '', [], {}, nest(30), nest(70), Array(3000).fill(null)),
  fc.jsonValue({ maxDepth: 3 }),
);

function hostile(schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = schema.anyOf ? schema.anyOf : [schema];
  const typed = types.map((s) => {
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (s.enum) return hostileString(s);
    switch (type) {
      case 'string':
        return hostileString(s);
      case 'number':
      case 'integer':
        return hostileNumber(s);
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.oneof(
          fc.array(s.items ? hostile(s.items) : fc.jsonValue({ maxDepth: 2 }), { maxLength: 12 }),
          fc.constant(Array.from({ length: 2000 }, (_, i) => `x${i}`)),
        );
      case 'object':
        return hostileObject(s);
      default:
        // A free-form argument (update_artifact rows, store_homework_file files).
        return fc.oneof(
          fc.jsonValue({ maxDepth: 4 }),
          fc.array(fc.record({ name: hostileString({}), content: fc.base64String({ maxLength: 64 }) })),
        );
    }
  });
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...typed) }, { weight: 1, arbitrary: wrongType });
}

/** Some of the object's properties (required ones usually present), hostile, plus stray fields. */
function hostileObject(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const shape = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, hostile(v)]));
  const extra = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
  return fc
    .tuple(fc.record(shape, { requiredKeys: [] }), extra, fc.boolean())
    .map(([own, stray, withStray]) => (withStray ? { ...stray, ...own } : own));
}

/** Rows of every service schema (the edge's audit log writes on refusals by design: left out). */
async function rowCounts(): Promise<string> {
  const tables = await sql<{ schema: string; name: string }>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema', 'edge')
    order by 1, 2`.execute(stack.homework.db);
  const parts = tables.rows.map(
    (t) => `select '${t.schema}.${t.name}' as t, count(*)::int as n from "${t.schema}"."${t.name}"`,
  );
  const counts = await sql.raw<{ t: string; n: number }>(parts.join(' union all ')).execute(stack.homework.db);
  return counts.rows
    .map((r) => `${r.t}=${r.n}`)
    .sort()
    .join(',');
}

/** Waits until no row changes for a while (events of an accepted write are still being projected). */
async function quiet(): Promise<string> {
  let last = await rowCounts();
  for (let i = 0; i < 25; i++) {
    await new Promise((r) => setTimeout(r, 150));
    const now = await rowCounts();
    if (now === last) return now;
    last = now;
  }
  return last;
}

const BROKEN = [phraseFor(503), 'Maximum call stack', 'Internal server error', 'internal error'];
const PHRASES = new Set<string>(Object.values(failurePhrase).filter((p) => p !== phraseFor(503)));

/** One raw tools/call; the outcome as refused / accepted, or a thrown assertion. */
async function callRaw(path: string, name: string, args: unknown): Promise<'refused' | 'ok'> {
  const res = await fetch(`${edge.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens[path]}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-03-26',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    // Never a hang: well above the bus timeout, well below the test's.
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  for (const b of BROKEN) expect(text, `${name}: ${text.slice(0, 300)}`).not.toContain(b);
  expect(res.status, `${name}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status !== 200) return 'refused';
  const body = JSON.parse(text) as {
    error?: { code: number };
    result?: {
      isError?: boolean;
      content?: Array<{ text?: string }>;
      structuredContent?: { error?: { code?: string } };
    };
  };
  if (body.error) return 'refused';
  if (!body.result?.isError) return 'ok';
  const code = body.result.structuredContent?.error?.code;
  const phrase = body.result.content?.[0]?.text ?? '';
  expect(Boolean(code) || PHRASES.has(phrase), `${name}: ${text.slice(0, 300)}`).toBe(true);
  return 'refused';
}

describe.each(['/mcp', '/authoring', '/kb'])('hostile arguments for every tool of %s', (path) => {
  it('are refused or served, never the outage phrase, never a hang; a refused write changes nothing', async () => {
    const list = await fetch(`${edge.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens[path]}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const tools = (
      (await list.json()) as {
        result: { tools: Array<{ name: string; inputSchema: JsonSchema; annotations?: { readOnlyHint?: boolean } }> };
      }
    ).result.tools;
    expect(tools.length).toBeGreaterThan(5);
    let refusedWrites = 0;
    let before = await quiet();
    for (const tool of tools) {
      const write = !tool.annotations?.readOnlyHint;
      await fc.assert(
        fc.asyncProperty(hostileObject(tool.inputSchema), async (args) => {
          const outcome = await callRaw(path, tool.name, args);
          if (!write) return;
          if (outcome === 'refused') {
            refusedWrites++;
            expect(await rowCounts(), `${tool.name} refused but wrote: ${JSON.stringify(args).slice(0, 300)}`).toBe(
              before,
            );
          } else {
            before = await quiet();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
    expect(refusedWrites).toBeGreaterThan(0);
    // Every service still answers.
    expect(await callRaw('/mcp', 'whoami', {})).toBe('ok');
    expect(await callRaw('/kb', 'whoami', {})).toBe('ok');
    expect(await callRaw('/authoring', 'list_courses', {})).toBe('ok');
  }, 300_000);
});
