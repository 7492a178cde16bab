import { ApiError, check, readEvents } from '../../chat/web/api.ts';
import { csrfToken } from '../../web/client/api.ts';

export { ApiError };

/** A quiz question as the page shows it. */
export type Question = {
  id: string;
  text: string;
  options: Array<{ id: string; text: string }>;
  number: number;
  total: number;
};

/** A tool's view as the page gets it (see services/edge/src/tutor/view.ts); which fields depends on the tool. */
export interface ToolView {
  tool: string;
  lesson?: { title?: string; number?: number; total?: number; course_title?: string; demo_lessons_left?: number };
  topics?: Array<{ key: string; text: string; status: string }>;
  topic?: { key: string; status: string };
  demo_exhausted?: { lessons_used: number; lessons_limit: number };
  question?: Question | null;
  verdict?: { correct: boolean };
  result?: { passed: boolean; score: number; pass_threshold: number } | null;
  prompt?: string;
  options?: string[];
  title?: string | null;
}

/** One item of a conversation on screen. */
export type Item = { role: 'user' | 'assistant'; content: string; note?: string } | { role: 'tool'; view: ToolView };

export interface Conversation {
  id: string;
  lesson: string;
  session: string | null;
  /** The start of the first message: what the list shows when neither title is known. */
  title: string;
  course_title: string | null;
  lesson_title: string | null;
  updated_at: string;
}

/** One event of a tutor turn. */
export type TurnEvent =
  | { type: 'metadata'; conversation_id: string }
  | { type: 'content'; content: string }
  | ({ type: 'tool' } & ToolView)
  | { type: 'done' }
  | { type: 'error'; content: string };

/** The tutor API as the signed-in student (the session cookie; a POST carries the CSRF token). */
export function tutorApi() {
  const get = async <T>(path: string): Promise<T> =>
    (await check(await fetch(path, { credentials: 'same-origin' }))).json();
  return {
    conversations: () =>
      get<{ items: Conversation[]; total: number; model_connected: boolean }>('/v1/tutor/conversations?page_size=50'),
    messages: (id: string) =>
      get<{ conversation: Conversation; items: Item[]; total: number }>(
        `/v1/tutor/conversations/${encodeURIComponent(id)}/messages?page_size=100`,
      ),
    /** Sends the student's message; `onEvent` sees every event until the stream ends or `signal` aborts it. */
    async send(
      body: { message: string; conversation_id: string | null; lesson: string | null },
      onEvent: (e: TurnEvent) => void,
      signal: AbortSignal,
    ) {
      const res = await check(
        await fetch('/v1/tutor/stream', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken() },
          body: JSON.stringify(body),
          signal,
        }),
      );
      await readEvents(res, onEvent);
    },
  };
}
export type TutorApi = ReturnType<typeof tutorApi>;
