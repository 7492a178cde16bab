import { resolve } from 'node:path';
import { releaseContent } from '@studium/contracts';
import { createTestEnv, type ScriptedLlm, startScriptedLlm } from '@studium/testing';
import { startAiChat } from './ai-chat.ts';
import { type AgentClient, connectAgent, data } from './clients.ts';
import { startCourses } from './courses.ts';
import { EXAMPLES, publishMap, startLessons } from './lessons.ts';
import { startEdge, startEnrollment } from './stack.ts';
import { type QuizKey, quizKey } from './teach.ts';

/** One event of a tutor turn's stream. */
export type TutorEvent = { type: string; [k: string]: unknown };

/** A whole tutor stack on this file's prefix: enrollment, courses, lessons, ai-chat (scripted model), edge; the demo course published. */
export async function startTutorStack(
  name: string,
  opts: { lessons?: Record<string, string>; aiChat?: Record<string, string>; edge?: Record<string, string> } = {},
) {
  const env = await createTestEnv(name);
  const llm: ScriptedLlm = await startScriptedLlm();
  const enrollment = await startEnrollment(env);
  const courses = await startCourses(env);
  const lessons = await startLessons(env, opts.lessons);
  const chat = await startAiChat(env, { AI_BASE_URL: llm.url, AI_MODEL: 'scripted-tutor', ...opts.aiChat });
  const edge = await startEdge(env, opts.edge);
  const published = await publishMap(env.bus, resolve(EXAMPLES, 'negotiation-basics'));
  const content = await env.bus.request(releaseContent, null, { course: published.course });
  if (!content.ok) throw new Error(content.error.code);
  const key: QuizKey = quizKey(content.data.content);
  const agents: AgentClient[] = [];
  return {
    env,
    llm,
    lessons,
    chat,
    edge,
    url: edge.url,
    course: published.course,
    key,
    /** A student with a token, enrolled in the demo course, and their agent on /mcp. */
    async student(user: string) {
      await enrollment.admin.upsertUser(user, 'Ученик Тест', ['Student']);
      const token = (await enrollment.admin.issueToken(user)).token;
      const password = `пароль-${user}`;
      await enrollment.admin.setPassword(user, password);
      const agent = await connectAgent('v2', `${edge.url}/mcp`, token);
      agents.push(agent);
      data(await agent.callTool('enroll', { course: published.course }));
      return { token, agent, password };
    },
    async close() {
      for (const a of agents) await a.close();
      await edge.close();
      await chat.close();
      await lessons.close();
      await courses.close();
      await enrollment.close();
      await llm.close();
      await env.cleanup();
    },
  };
}

/** Sends a student's message to the tutor and reads the whole stream (or the HTTP error). */
export async function tutorTurn(
  url: string,
  token: string | null,
  body: unknown,
): Promise<{ status: number; events: TutorEvent[]; body?: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${url}/v1/tutor/stream`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (!res.ok) return { status: res.status, events: [], body: (await res.json()) as Record<string, unknown> };
  const text = await res.text();
  const events = text
    .split('\n\n')
    .filter((p) => p.startsWith('data: '))
    .map((p) => JSON.parse(p.slice(6)) as TutorEvent);
  return { status: res.status, events };
}
