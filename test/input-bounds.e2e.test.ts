import { curatorTools, FIELD_REFUSALS, kbTools, LIMITS, studentTools } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SURFACES, type SurfacePath } from '../services/edge/src/mcp/endpoint.ts';
import { type AgentClient, connectAgent, type ToolResult, text } from './support/clients.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

// Bad input is a refusal, never the outage phrase: every string argument of every tool the edge
// serves, on every endpoint, is tried with a NUL byte and with one character over its limit.
// The cases come from the served tools/list, so tools and endpoints added later are covered too.

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let token: string;

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  maxLength?: number;
  minLength?: number;
}

interface Case {
  field: string;
  args: (bad: string) => Record<string, unknown>;
  maxLength: number | undefined;
  isEnum: boolean;
}

/** A value that passes the schema, for the required arguments around the one under test. */
function sample(schema: JsonSchema): unknown {
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return sample(schema.anyOf[0] as JsonSchema);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return [];
  }
}

/** Every string in a tool's arguments (top level, array items, union members), with its limit. */
function stringCases(input: JsonSchema): Case[] {
  const base = () =>
    Object.fromEntries((input.required ?? []).map((k) => [k, sample(input.properties?.[k] ?? {})])) as Record<
      string,
      unknown
    >;
  const cases: Case[] = [];
  for (const [name, prop] of Object.entries(input.properties ?? {})) {
    const variants = prop.anyOf ?? [prop];
    for (const v of variants) {
      if (v.type === 'string') {
        cases.push({
          field: name,
          args: (bad) => ({ ...base(), [name]: bad }),
          maxLength: v.maxLength,
          isEnum: Boolean(v.enum),
        });
      }
      if (v.type === 'array' && v.items?.type === 'string') {
        cases.push({
          field: `${name}.0`,
          args: (bad) => ({ ...base(), [name]: [bad] }),
          maxLength: v.items.maxLength,
          isEnum: Boolean(v.items.enum),
        });
      }
      if (v.type === undefined && !v.anyOf) {
        // A free-form argument (update_artifact rows, store_homework_file files): strings inside it.
        cases.push({
          field: `${name}.0.x`,
          args: (bad) => ({ ...base(), [name]: [{ x: bad }] }),
          maxLength: undefined,
          isEnum: false,
        });
      }
    }
  }
  return cases;
}

function refusal(result: ToolResult) {
  return (
    result.structuredContent as
      | { error?: { code: string; field?: string; fields?: Array<{ field: string }> } }
      | undefined
  )?.error;
}

/**
 * The refusal names the field: invalid_arguments listing it, or — for a top-level id or page
 * field whose tool has the spec's code for an unknown one (FIELD_REFUSALS) — that code.
 */
function namesField(error: ReturnType<typeof refusal>, tool: string, field: string): boolean {
  if (error?.code === 'invalid_arguments') return !!error.fields?.some((f) => f.field === field);
  const contract = [...studentTools, ...curatorTools, ...kbTools].find((t) => t.name === tool);
  const mapped = FIELD_REFUSALS[field]?.find((c) => contract?.refusals.includes(c));
  return !!mapped && error?.code === mapped && error.field === field;
}

beforeAll(async () => {
  env = await createTestEnv('input-bounds');
  enrollment = await startEnrollment(env);
  edge = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '0' });
  await enrollment.admin.upsertUser('admin@test', 'Ада Админ', ['Student', 'Administrator']);
  token = (await enrollment.admin.issueToken('admin@test')).token;
});

afterAll(async () => {
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe.each(Object.keys(SURFACES) as SurfacePath[])('every string argument of every tool at %s', (path) => {
  let agent: AgentClient;
  let tools: Array<{ name: string; inputSchema: JsonSchema }>;
  beforeAll(async () => {
    agent = await connectAgent('v2', `${edge.url}${path}`, token);
    tools = (await agent.listTools()).tools as unknown as typeof tools;
  });
  afterAll(async () => {
    await agent?.close();
  });

  it('has a length limit in the listed schema (enums are bounded by their values)', () => {
    const unbounded = tools.flatMap((t) =>
      stringCases(t.inputSchema)
        .filter((c) => !c.isEnum && !c.field.endsWith('.0.x') && c.maxLength === undefined)
        .map((c) => `${t.name}.${c.field}`),
    );
    expect(unbounded).toEqual([]);
    expect(tools.flatMap((t) => stringCases(t.inputSchema)).length).toBeGreaterThan(tools.length / 2);
  });

  it('a NUL byte is a refusal naming the field', async () => {
    const wrong: string[] = [];
    for (const tool of tools) {
      for (const c of stringCases(tool.inputSchema)) {
        const result = await agent.callTool(tool.name, c.args('ab\u0000cd'));
        const error = refusal(result);
        if (!namesField(error, tool.name, c.field)) {
          wrong.push(`${tool.name}.${c.field}: ${text(result).slice(0, 120)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('one character over the limit is a refusal naming the field, without echoing the value', async () => {
    const wrong: string[] = [];
    for (const tool of tools) {
      for (const c of stringCases(tool.inputSchema)) {
        if (c.field.endsWith('.0.x')) continue;
        const long = 'я'.repeat((c.maxLength ?? 1000) + 1);
        const result = await agent.callTool(tool.name, c.args(long));
        const error = refusal(result);
        if (!namesField(error, tool.name, c.field)) {
          wrong.push(`${tool.name}.${c.field}: ${text(result).slice(0, 120)}`);
        }
        if (JSON.stringify(result).includes('я'.repeat(64))) wrong.push(`${tool.name}.${c.field}: echoes the value`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('limits around the spec', () => {
  it('a field with the spec’s own length refusal lets a longer value through to its service', async () => {
    const agent = await connectAgent('v2', `${edge.url}/mcp`, token);
    const { tools } = await agent.listTools();
    const markGoal = tools.find((t) => t.name === 'mark_goal') as unknown as { inputSchema: JsonSchema };
    const evidence = markGoal.inputSchema.properties?.evidence?.maxLength ?? 0;
    expect(evidence).toBeGreaterThan(LIMITS.evidence);
    const result = await agent.callTool('mark_goal', {
      session: 's',
      goal: 'term:T1',
      status: 'done',
      evidence: 'я'.repeat(LIMITS.evidence + 100),
    });
    // No lessons service runs here: the call got past the edge's schema to the bus.
    expect(refusal(result)?.code).not.toBe('invalid_arguments');
    await agent.close();
  });

  it('create_course refuses an empty or blank title or summary', async () => {
    const agent = await connectAgent('v2', `${edge.url}/authoring`, token);
    for (const args of [
      { title: '', summary: 'Карточка' },
      { title: '   ', summary: 'Карточка' },
      { title: 'Курс', summary: '' },
    ]) {
      const error = refusal(await agent.callTool('create_course', args));
      expect(error?.code).toBe('invalid_arguments');
      expect(error?.fields?.[0]?.field).toBe(args.title.trim() ? 'summary' : 'title');
    }
    await agent.close();
  });
});
