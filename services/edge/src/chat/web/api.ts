import { createParser } from 'eventsource-parser';

/** A thread as the chat API lists it. */
export interface Thread {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

/** A message as the chat API lists it. */
export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
}

/** A page of a list. */
export interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}

/** An HTTP error of the chat API, with its Russian detail. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One event of the answer stream (spec 001). */
export type StreamEvent =
  | { type: 'metadata'; thread_id: string }
  | { type: 'message_id'; id: string }
  | { type: 'content'; content: string }
  | { type: 'ai_message_id'; id: string }
  | { type: 'done' }
  | { type: 'error'; content: string };

/** The response when it is a success; an {@link ApiError} with the API's Russian detail otherwise. */
export async function check(res: Response): Promise<Response> {
  if (res.ok) return res;
  const body = (await res.json().catch(() => ({}))) as { detail?: string };
  throw new ApiError(res.status, body.detail ?? `HTTP ${res.status}`);
}

/**
 * Reads a Server-Sent Events response to its end, handing each event's JSON to `onEvent`. The
 * stream is parsed as the SSE format defines it (eventsource-parser): LF, CR or CRLF line ends,
 * `data:` with or without its space, data over several lines, `id:`, `retry:` and comments. Only
 * unnamed events (or `event: message`) are the API's; a named one or data that is not JSON is
 * passed over, as an EventSource would not hand it to a `message` listener.
 */
export async function readEvents<E>(res: Response, onEvent: (e: E) => void): Promise<void> {
  const parser = createParser({
    onEvent(message) {
      if (message.event !== undefined && message.event !== 'message') return;
      let event: E;
      try {
        event = JSON.parse(message.data) as E;
      } catch {
        return;
      }
      onEvent(event);
    },
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}

/** The chat API with one teacher's token. */
export function chatApi(token: string) {
  const auth = { authorization: `Bearer ${token}` };
  const get = async <T>(path: string): Promise<T> => (await check(await fetch(path, { headers: auth }))).json();
  return {
    status: () => get<{ connected: boolean; model: string | null; how: string | null }>('/v1/ai-chat/status'),
    threads: (page: number, size = 30) => get<Page<Thread>>(`/v1/ai-chat/threads?page=${page}&page_size=${size}`),
    messages: (thread: string, page: number, size = 20) =>
      get<Page<Message>>(`/v1/ai-chat/threads/${thread}/messages?page=${page}&page_size=${size}`),
    async deleteThread(thread: string): Promise<void> {
      await check(await fetch(`/v1/ai-chat/threads/${thread}`, { method: 'DELETE', headers: auth }));
    },
    /** Sends a message and calls `onEvent` for every event until the stream ends or `signal` aborts it. */
    async send(message: string, threadId: string | null, onEvent: (e: StreamEvent) => void, signal: AbortSignal) {
      const res = await check(
        await fetch('/v1/ai-chat/stream', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ message, thread_id: threadId }),
          signal,
        }),
      );
      await readEvents(res, onEvent);
    },
  };
}
export type ChatApi = ReturnType<typeof chatApi>;
