import { randomUUID } from 'node:crypto';
import { chatStartAnswer, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { chatCaller } from '../access.ts';
import type { ActiveAnswers } from '../active-answers.ts';
import type { AnswerRunner } from '../answer-runner.ts';
import { isUuid, messageProblem, threadTitle } from '../domain/text.ts';
import { messageInvalid, threadNotFound, tooManyAnswers } from '../refusals.ts';
import type { ThreadRepository } from '../repositories/thread.repository.ts';

/**
 * POST /v1/ai-chat/stream, the part before the stream: checks, saves the teacher's message, and
 * starts the answer. Every refusal comes before anything is written.
 */
export function startAnswerHandler(
  threads: ThreadRepository,
  active: ActiveAnswers,
  runner: AnswerRunner,
  limit: number,
) {
  return endpoint(chatStartAnswer, async ({ message, thread_id, inbox }, ctx) => {
    const who = chatCaller(ctx);
    if (!who.ok) return who;
    const problem = messageProblem(message);
    if (problem) return messageInvalid(problem.reason, problem.length);
    if (thread_id !== null && !isUuid(thread_id)) return threadNotFound(thread_id);
    const messageId = randomUUID();
    if (!(await active.acquire(who.user, messageId))) return tooManyAnswers(limit);
    let saved: Awaited<ReturnType<ThreadRepository['addQuestion']>>;
    try {
      saved = await threads.addQuestion(who.user, thread_id, threadTitle(message), message, messageId);
    } catch (err) {
      await active.release(who.user, messageId);
      throw err;
    }
    if (!saved) {
      await active.release(who.user, messageId);
      return threadNotFound(thread_id ?? '');
    }
    // A new thread holds only the question: the model's window needs no query.
    const window = thread_id === null ? [{ id: messageId, role: 'user' as const, content: message }] : undefined;
    const control = runner.start({ user: who.user, threadId: saved.threadId, messageId, inbox, window });
    return ok({ thread_id: saved.threadId, message_id: messageId, control });
  });
}
