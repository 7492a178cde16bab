import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, data } from './support/clients.ts';
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

describe('whoami while the chosen organization is suspended', () => {
  it('space is personal (where the lists work) and selected_space names the chosen organization', async () => {
    const a = enrollment.admin;
    await a.upsertOrganization('acme', 'Акме');
    await a.addMember('acme', 'student@test', 'member');
    const student = await connectAgent('v1', `${edge.url}/mcp`, tokens.student);
    expect((await student.callTool('set_space', { space: 'acme' })).isError).toBeFalsy();
    expect(data(await student.callTool('whoami', {}))).toMatchObject({ space: 'acme' });
    expect(data(await student.callTool('whoami', {}))).not.toHaveProperty('selected_space');

    await a.setSuspended('acme', true);
    await eventually(async () => expect(data(await student.callTool('whoami', {})).space).toBe('personal'));
    const who = data(await student.callTool('whoami', {}));
    expect(who).toMatchObject({
      space: 'personal',
      selected_space: 'acme',
      organizations: [{ name: 'acme', suspended: true }],
    });
    expect(data(await student.callTool('list_my_courses', {})).space).toBe('personal');

    await a.setSuspended('acme', false);
    await eventually(async () => expect(data(await student.callTool('whoami', {})).space).toBe('acme'));
    expect(data(await student.callTool('whoami', {}))).not.toHaveProperty('selected_space');
    await student.close();
  });
});
