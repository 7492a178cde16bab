import { createTestEnv, type ScriptedLlm, startScriptedLlm, type TestEnv } from '@studium/testing';
import { startAiChat } from '../../../test/support/ai-chat.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';

/** People of the chat tests: role → user id. */
export const PEOPLE = {
  teacher: { id: 'teacher@school.test', roles: ['Teacher'] },
  other: { id: 'other-teacher@school.test', roles: ['Teacher'] },
  schoolAdmin: { id: 'head@school.test', roles: ['Manager'] },
  student: { id: 'student@school.test', roles: ['Student'] },
} as const;

/** The real enrollment, ai-chat and edge on this file's prefix, with a scripted model, and tokens of {@link PEOPLE}. */
export async function startChatStack(
  name: string,
  aiChat: Record<string, string> = {},
  edge: Record<string, string> = {},
) {
  const env: TestEnv = await createTestEnv(name);
  const llm: ScriptedLlm = await startScriptedLlm();
  const enrollment = await startEnrollment(env);
  const chat = await startAiChat(env, { AI_BASE_URL: llm.url, AI_MODEL: 'scripted-model', ...aiChat });
  const edgeApp = await startEdge(env, edge);
  const tokens = {} as Record<keyof typeof PEOPLE | 'teacherRead', string>;
  for (const [name, p] of Object.entries(PEOPLE)) {
    await enrollment.admin.upsertUser(p.id, name, [...p.roles]);
    tokens[name as keyof typeof PEOPLE] = (await enrollment.admin.issueToken(p.id)).token;
  }
  tokens.teacherRead = (await enrollment.admin.issueToken(PEOPLE.teacher.id, { scope: 'read' })).token;
  return {
    env,
    llm,
    enrollment,
    chat,
    edge: edgeApp,
    url: edgeApp.url,
    tokens,
    async close() {
      await edgeApp.close();
      await chat.close();
      await enrollment.close();
      await llm.close();
      await env.cleanup();
    },
  };
}
