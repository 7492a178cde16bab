import { z } from 'zod';
import { defineOperation } from '../tool.ts';
import { CHAT_PAGE_SIZE, FrameSubject } from './ai-chat.ts';

/**
 * The platform's own tutor (issue 23): lessons in the web chat for students without an assistant.
 * ai-chat keeps the conversations and calls the model; the edge runs the model's tool calls for
 * the signed-in student (it holds the student's principal and signs it for each tool's subject).
 */

/** The lesson tools the tutor's model is offered (spec 000: fill_document is not run in the web chat). */
export const TUTOR_TOOLS = [
  'start_lesson',
  'lesson_item',
  'mark_goal',
  'request_quiz',
  'submit_answer',
  'complete_lesson',
  'update_artifact',
  'remember',
  'report_issue',
  'choose',
] as const;
export type TutorTool = (typeof TUTOR_TOOLS)[number];

/** A student's message to the tutor: 1–4000 characters. */
export const TUTOR_MESSAGE_MAX = 4000;
/** Tool rounds of one model turn by default (ai-chat's AI_TUTOR_TOOL_ROUNDS): past them the turn ends with an error. */
export const TUTOR_TOOL_ROUNDS = 12;
/** Tool calls of one model round that run; the rest are refused (`too_many_calls`) as their results. */
export const TUTOR_CALLS_PER_ROUND = 16;
/** What one tool result may put in the conversation (characters); longer ones are cut (16 of them fit a NATS message). */
export const TUTOR_TOOL_RESULT_MAX = 48_000;
/** Arguments of one tool call (characters of JSON) the edge accepts from the model. */
export const TUTOR_TOOL_ARGS_MAX = 16_000;

/** Refusal codes of the tutor operations and the HTTP status each becomes at the edge. */
export const TUTOR_REFUSAL_STATUS = {
  conversation_not_found: 404,
  message_invalid: 422,
  too_many_answers: 429,
} as const;

/** One tool call of the model, as ai-chat hands it to the edge to run. */
export const TutorToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
export type TutorToolCall = z.infer<typeof TutorToolCall>;

/** Longest course or lesson title a conversation keeps (characters). */
export const TUTOR_TITLE_MAX = 300;

/**
 * A conversation: one lesson (course id or lesson id as the page opened it) and the session it
 * runs in. It is listed by `course_title` and `lesson_title` (null while unknown: an earlier
 * conversation, or a course whose first lesson has not started); `title` is the start of the
 * first message, for when neither is known.
 */
export const TutorConversation = z.object({
  id: z.string(),
  lesson: z.string(),
  session: z.string().nullable(),
  title: z.string(),
  course_title: z.string().nullable(),
  lesson_title: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TutorConversation = z.infer<typeof TutorConversation>;

/** A message as the page shows it again: the student's, the tutor's, or a tool's card (choose, quiz). */
export const TutorMessage = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant', 'tool']),
  content: z.string(),
  /** For role tool: which tool answered (the page draws choose and quiz cards again). */
  tool: z.string().nullable(),
  /** For role assistant: why the reply did not end (stopped, the model's failure), as the student was told; null when it ended. */
  note: z.string().nullable(),
});
export type TutorMessage = z.infer<typeof TutorMessage>;

const Paging = z.object({
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(CHAT_PAGE_SIZE.max),
});

/**
 * Starts a turn: saves the student's message (in a new conversation for `lesson` when
 * conversation_id is null) and replies with the ids; the turn then streams as {@link TutorFrame}s
 * to `inbox`. The caller sends {@link TutorControl}s to `control`: `alive`, `cancel`, and the
 * results of the tool calls it was handed. Refusals: message_invalid, conversation_not_found,
 * too_many_answers.
 */
export const tutorStartTurn = defineOperation({
  subject: 'ai-chat.tutor_turn',
  input: z.object({
    message: z.string(),
    conversation_id: z.string().nullable(),
    lesson: z.string().max(200).nullable(),
    /** For a new conversation: the titles of its course and lesson as the edge read them for the student (null when unknown). */
    titles: z
      .object({
        course: z.string().max(TUTOR_TITLE_MAX).nullable(),
        lesson: z.string().max(TUTOR_TITLE_MAX).nullable(),
      })
      .optional(),
    inbox: FrameSubject,
  }),
  output: z.object({ conversation_id: z.string(), control: z.string() }),
});

/** The student's tutor conversations, last active first, and whether a model is connected. */
export const tutorListConversations = defineOperation({
  subject: 'ai-chat.tutor_conversations',
  input: Paging,
  output: z.object({
    items: z.array(TutorConversation),
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int(),
    model_connected: z.boolean(),
  }),
});

/** A conversation's messages in order (oldest first on each page); conversation_not_found. */
export const tutorMessages = defineOperation({
  subject: 'ai-chat.tutor_messages',
  input: Paging.extend({ conversation_id: z.string() }),
  output: z.object({
    conversation: TutorConversation,
    items: z.array(TutorMessage),
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int(),
  }),
});

/** One frame of a tutor turn on the caller's inbox; `seq` counts frames from 1. */
export const TutorFrame = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('content'),
    seq: z.number().int(),
    content: z.string(),
    /** On the first content frame of a model round: the provider's own time to first token, ms. */
    provider_ttft_ms: z.number().optional(),
  }),
  z.object({ type: z.literal('heartbeat'), seq: z.number().int() }),
  /** Run these and send their results back (`tool_results`); `round` counts model rounds from 1. */
  z.object({
    type: z.literal('tool_calls'),
    seq: z.number().int(),
    round: z.number().int(),
    calls: z.array(TutorToolCall),
    /** The provider's time for this round (request to last piece), ms. */
    provider_ms: z.number().optional(),
  }),
  /** A call ai-chat refused itself (the turn rule): the page may show nothing, the model hears it. */
  z.object({ type: z.literal('tool_refused'), seq: z.number().int(), id: z.string(), name: z.string() }),
  z.object({ type: z.literal('done'), seq: z.number().int(), provider_ms: z.number().optional() }),
  z.object({ type: z.literal('error'), seq: z.number().int(), content: z.string() }),
]);
export type TutorFrame = z.infer<typeof TutorFrame>;

/** What the caller sends to a turn's control subject. */
export const TutorControl = z.discriminatedUnion('type', [
  z.object({ type: z.literal('alive') }),
  z.object({ type: z.literal('cancel') }),
  z.object({
    type: z.literal('tool_results'),
    round: z.number().int(),
    results: z.array(z.object({ id: z.string(), content: z.string() })),
  }),
]);
export type TutorControl = z.infer<typeof TutorControl>;

/** Decodes a turn frame from the wire, or null when it is not one. */
export function decodeTutorFrame(data: Uint8Array): TutorFrame | null {
  try {
    const parsed = TutorFrame.safeParse(JSON.parse(new TextDecoder().decode(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
