import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdge, startEnrollment } from './support/stack.ts';

// Spec points of issue 10: the curator's prompt author, and the enrollment rules around spaces.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnv('spec-points');
  enrollment = await startEnrollment(env);
  edge = await startEdge(env);
  const a = enrollment.admin;
  await a.upsertUser('curator@test', 'Кира Куратор', ['Course Creator', 'Student']);
  await a.upsertUser('student@test', 'Анна Ученица', ['Student']);
  tokens.curator = (await a.issueToken('curator@test')).token;
  tokens.student = (await a.issueToken('student@test')).token;
});

afterAll(async () => {
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

async function connect(version: 'v1' | 'v2', path: string, token: string) {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (version === 'v1') {
    const client = new ClientV1({ name: 't', version: '1' });
    await client.connect(new TransportV1(new URL(`${edge.url}${path}`), { requestInit }));
    return client as unknown as Client;
  }
  const client = new Client({ name: 't', version: '2' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${edge.url}${path}`), { requestInit }));
  return client;
}

describe.each(['v1', 'v2'] as const)('the prompt author (%s client)', (version) => {
  it('is listed and returned on /authoring, with the order of work', async () => {
    const client = await connect(version, '/authoring', tokens.curator);
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['author']);
    expect(prompts[0].description).toBeTruthy();
    const prompt = await client.getPrompt({ name: 'author' });
    const text = (prompt.messages[0].content as { text: string }).text;
    for (const tool of [
      'list_courses',
      'course_notes',
      'course_release',
      'course_reports',
      'resolve_note',
      'add_note',
    ]) {
      expect(text).toContain(tool);
    }
    expect(client.getInstructions()).toContain('prompt author');
    await client.close();
  });

  it('is not offered on /mcp', async () => {
    const client = await connect(version, '/mcp', tokens.curator);
    expect(client.getServerCapabilities()?.prompts).toBeUndefined();
    await expect(client.getPrompt({ name: 'author' })).rejects.toThrow();
    await client.close();
  });
});
