import { chatDeleteThread, chatListThreads, chatModelStatus, chatThreadMessages, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { chatCaller } from '../access.ts';
import { HOW_TO_CONNECT } from '../domain/failures.ts';
import { isUuid } from '../domain/text.ts';
import { threadNotFound } from '../refusals.ts';
import type { ThreadRepository } from '../repositories/thread.repository.ts';

/** GET /v1/ai-chat/threads: the caller's threads, last active first. */
export function listThreadsHandler(threads: ThreadRepository) {
  return endpoint(chatListThreads, async ({ page, page_size }, ctx) => {
    const who = chatCaller(ctx);
    if (!who.ok) return who;
    const { items, total } = await threads.threads(who.user, page_size, (page - 1) * page_size);
    return ok({ items, page, page_size, total });
  });
}

/** GET /v1/ai-chat/threads/{thread_id}/messages: newest first; someone else's thread is not found. */
export function threadMessagesHandler(threads: ThreadRepository) {
  return endpoint(chatThreadMessages, async ({ thread_id, page, page_size }, ctx) => {
    const who = chatCaller(ctx);
    if (!who.ok) return who;
    if (!isUuid(thread_id) || !(await threads.owns(who.user, thread_id))) return threadNotFound(thread_id);
    const { items, total } = await threads.messages(thread_id, page_size, (page - 1) * page_size);
    return ok({ items, page, page_size, total });
  });
}

/** DELETE /v1/ai-chat/threads/{thread_id}: the thread and all its messages. */
export function deleteThreadHandler(threads: ThreadRepository) {
  return endpoint(chatDeleteThread, async ({ thread_id }, ctx) => {
    const who = chatCaller(ctx);
    if (!who.ok) return who;
    if (!isUuid(thread_id) || !(await threads.delete(who.user, thread_id))) return threadNotFound(thread_id);
    return ok({ deleted: true as const });
  });
}

/** Which model answers (the page's banner). */
export function modelStatusHandler(model: string | null) {
  return endpoint(chatModelStatus, async (_args, ctx) => {
    const who = chatCaller(ctx);
    if (!who.ok) return who;
    return ok(model ? { connected: true, model, how: null } : { connected: false, model: null, how: HOW_TO_CONNECT });
  });
}
