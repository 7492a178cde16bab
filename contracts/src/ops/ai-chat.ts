import { z } from 'zod';
import { defineOperation } from '../tool.ts';

/**
 * Where the caller listens for a streamed answer's frames: `[<prefix>.]edge.frames.<token>`, a
 * subject used once (see `onceSubject` in the platform). ai-chat may publish nowhere else.
 */
export const FrameSubject = z.string().regex(/^(?:[A-Za-z0-9_-]+\.)*edge\.frames\.[A-Za-z0-9_-]{22}$/);

/** Spec 001: a message is 1–8000 characters. */
export const CHAT_MESSAGE_MAX = 8000;
/** Spec 001: a thread's title is the start of its first message, up to 80 characters. */
export const CHAT_TITLE_MAX = 80;
/** Spec 001: the assistant sees the last 30 messages of the thread. */
export const CHAT_CONTEXT_MESSAGES = 30;
/** Page size of the thread and message lists: default and maximum. */
export const CHAT_PAGE_SIZE = { default: 20, max: 100 } as const;

/** Platform roles that open the teacher's AI chat (spec 001's teacher and school_admin; see docs/decisions.md). */
export const CHAT_ROLES = ['Teacher', 'Manager', 'Administrator'] as const;

/** True when the roles include one that opens the chat. */
export function isChatUser(roles: readonly string[]): boolean {
  return roles.some((r) => (CHAT_ROLES as readonly string[]).includes(r));
}

/** The spec's «Тред» object. */
export const ChatThread = z.object({
  id: z.string(),
  title: z.string(),
  created_at: z.string(),
  /** When the last answer came (the creation time until then). */
  updated_at: z.string(),
});
export type ChatThread = z.infer<typeof ChatThread>;

/** The spec's «Сообщение» object. */
export const ChatMessage = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

const Paging = z.object({
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(CHAT_PAGE_SIZE.max),
});

/** A page of a list: items, the page asked and the total count. */
function page<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int(),
  });
}

/** Refusal codes of the chat operations and the HTTP status each becomes at the edge. */
export const CHAT_REFUSAL_STATUS = {
  thread_not_found: 404,
  message_invalid: 422,
  chat_role_required: 403,
  too_many_answers: 429,
} as const;
export type ChatRefusalCode = keyof typeof CHAT_REFUSAL_STATUS;

/** The caller's threads, last active first (`GET /v1/ai-chat/threads`). */
export const chatListThreads = defineOperation({
  subject: 'ai-chat.list_threads',
  input: Paging,
  output: page(ChatThread),
});

/** A thread's messages, newest first (`GET /v1/ai-chat/threads/{thread_id}/messages`); thread_not_found. */
export const chatThreadMessages = defineOperation({
  subject: 'ai-chat.thread_messages',
  input: Paging.extend({ thread_id: z.string() }),
  output: page(ChatMessage),
});

/** Deletes a thread with its messages (`DELETE /v1/ai-chat/threads/{thread_id}`); thread_not_found. */
export const chatDeleteThread = defineOperation({
  subject: 'ai-chat.delete_thread',
  input: z.object({ thread_id: z.string() }),
  output: z.object({ deleted: z.literal(true) }),
});

/** Which model answers, for the page's banner; `connected: false` with `how` when none is configured. */
export const chatModelStatus = defineOperation({
  subject: 'ai-chat.model_status',
  input: z.object({}),
  output: z.object({ connected: z.boolean(), model: z.string().nullable(), how: z.string().nullable() }),
});

/**
 * Starts an answer (`POST /v1/ai-chat/stream`): saves the teacher's message (in a new thread when
 * thread_id is null) and replies with the ids; the answer then streams as {@link ChatFrame}s to
 * `inbox`. The caller sends {@link ChatControl}s to `control`: `alive` at least every few seconds
 * (the answer is aborted without them) and `cancel` when its client went away.
 * Refusals: message_invalid, thread_not_found, chat_role_required, too_many_answers.
 */
export const chatStartAnswer = defineOperation({
  subject: 'ai-chat.start_answer',
  input: z.object({ message: z.string(), thread_id: z.string().nullable(), inbox: FrameSubject }),
  output: z.object({ thread_id: z.string(), message_id: z.string(), control: z.string() }),
});

/** One frame of an answer on the caller's inbox; `seq` counts frames from 1, so a lost one is noticed. */
export const ChatFrame = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('content'),
    seq: z.number().int(),
    content: z.string(),
    /** On the first content frame: the provider's own time to first token, in ms. */
    provider_ttft_ms: z.number().optional(),
  }),
  z.object({ type: z.literal('heartbeat'), seq: z.number().int() }),
  z.object({ type: z.literal('done'), seq: z.number().int(), ai_message_id: z.string() }),
  z.object({ type: z.literal('error'), seq: z.number().int(), content: z.string() }),
]);
export type ChatFrame = z.infer<typeof ChatFrame>;

/** What the caller sends to an answer's control subject. */
export const ChatControl = z.object({ type: z.enum(['alive', 'cancel']) });
export type ChatControl = z.infer<typeof ChatControl>;

/**
 * Decodes a {@link ChatFrame} without a schema pass (the edge reads one per piece of every answer);
 * null when the bytes are not a frame.
 */
export function decodeChatFrame(data: Uint8Array): ChatFrame | null {
  let f: Record<string, unknown>;
  try {
    f = JSON.parse(frameDecoder.decode(data));
  } catch {
    return null;
  }
  if (typeof f !== 'object' || f === null || typeof f.seq !== 'number') return null;
  switch (f.type) {
    case 'content':
      return typeof f.content === 'string' ? (f as ChatFrame) : null;
    case 'heartbeat':
      return f as ChatFrame;
    case 'done':
      return typeof f.ai_message_id === 'string' ? (f as ChatFrame) : null;
    case 'error':
      return typeof f.content === 'string' ? (f as ChatFrame) : null;
    default:
      return null;
  }
}
const frameDecoder = new TextDecoder();
