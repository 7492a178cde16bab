import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { chatModelStatus } from '@studium/contracts';
import { createTestEnv, eventually, type ScriptedLlm, startScriptedLlm, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatEvent, chatApi, sendMessage, shape } from '../../../test/support/ai-chat.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';

// ai-chat runs as its own process here, so it can be killed like a crashed pod.
const ROOT = resolve(import.meta.dirname, '../../..');
const TEACHER = {
  user: 'crash-teacher@school.test',
  full_name: 'Учитель',
  roles: ['Teacher'],
  scope: 'write' as const,
  space: 'personal',
};

let env: TestEnv;
let llm: ScriptedLlm;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let token: string;
let child: ChildProcess | null = null;

async function startProcess(): Promise<ChildProcess> {
  // node with the tsx loader, not the tsx launcher: a SIGKILL must reach the service's own process.
  const proc = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'services/ai-chat/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      SUBJECT_PREFIX: env.prefix,
      REDIS_URL: env.redisUrl,
      ...env.natsEnv('ai-chat'),
      AI_BASE_URL: llm.url,
      AI_MODEL: 'scripted-model',
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  await eventually(
    async () => expect((await env.bus.request(chatModelStatus, TEACHER, {})).ok).toBe(true),
    30_000,
    200,
  );
  return proc;
}

/** Streams a long answer and runs `act` once the first piece arrived; resolves with the events and when the last came. */
async function streamAnd(act: () => void) {
  llm.script({ chunks: Array.from({ length: 500 }, (_, i) => `слово${i} `), delayMs: 20 });
  let acted = 0;
  const res = await sendMessage(
    edge.url,
    token,
    { message: 'Длинный вопрос', thread_id: null },
    {
      onEvent: (e: ChatEvent) => {
        if (e.type === 'content' && !acted) {
          acted = Date.now();
          act();
        }
      },
    },
  );
  return { ...res, afterMs: Date.now() - acted };
}

beforeAll(async () => {
  env = await createTestEnv('ai-chat-crash');
  llm = await startScriptedLlm();
  enrollment = await startEnrollment(env);
  edge = await startEdge(env);
  await enrollment.admin.upsertUser(TEACHER.user, TEACHER.full_name, TEACHER.roles);
  token = (await enrollment.admin.issueToken(TEACHER.user)).token;
}, 60_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await edge?.close();
  await enrollment?.close();
  await llm?.close();
  await env?.cleanup();
});

describe('ai-chat going away mid-answer', () => {
  it('killed: the client gets an error event within a few seconds, never a hang, and no answer is saved', async () => {
    child = await startProcess();
    const proc = child;
    const res = await streamAnd(() => proc.kill('SIGKILL'));
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'error']);
    expect(res.events.at(-1)?.content).toMatch(/перестал отвечать/);
    expect(res.afterMs).toBeLessThan(6_000);
    const thread = res.events[0].thread_id as string;
    // The service is down, so read the kept messages once it is back.
    child = await startProcess();
    const messages = await chatApi(edge.url, token, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
    expect(messages.body.items).toEqual([{ id: res.events[1].id, role: 'user', content: 'Длинный вопрос' }]);
  }, 60_000);

  it('stopped (SIGTERM): the answer ends at once with an error event that says the service restarts', async () => {
    const proc = child!;
    const exited = new Promise((r) => proc.once('exit', r));
    const res = await streamAnd(() => proc.kill('SIGTERM'));
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'error']);
    expect(res.events.at(-1)?.content).toMatch(/перезапускается/);
    expect(res.afterMs).toBeLessThan(3_000);
    await exited;
    // The model call was aborted with it.
    await eventually(async () => expect(llm.requests.at(-1)?.aborted).toBe(true), 5_000);
    child = null;
    // With ai-chat gone, a new message is refused before any stream: 503, at once.
    const down = await sendMessage(edge.url, token, { message: 'Есть кто?', thread_id: null });
    expect(down.status).toBe(503);
    expect(down.body?.detail).toMatch(/недоступен/);
  }, 60_000);
});
