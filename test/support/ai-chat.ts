import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import { type AiChatApp, createApp, MIGRATIONS } from '../../services/ai-chat/src/app.ts';
import { AiChatConfig } from '../../services/ai-chat/src/config.ts';
import type { AiChatDb } from '../../services/ai-chat/src/db.ts';
import { controlled } from './stack.ts';

/**
 * The real ai-chat service in this process, against the test's NATS prefix, database and Redis;
 * `overrides` set its configuration (AI_BASE_URL and AI_MODEL point it at a scripted model).
 */
export async function startAiChat(env: TestEnv, overrides: Record<string, string> = {}) {
  const database = openDatabase<AiChatDb>(env.databaseUrl, 'ai_chat', 6);
  await migrate(database.pool, 'ai_chat', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const config = AiChatConfig.parse({
    SUBJECT_PREFIX: env.prefix,
    REDIS_URL: env.redisUrl,
    AI_MAX_RETRIES: '0',
    ...overrides,
  });
  const { nc, bus } = await env.serviceBus('ai-chat', { log: env.log });
  const start = () => createApp({ bus, nc, database, log: env.log, config });
  return Object.assign(await controlled<AiChatApp>(start, database), { database, db: database.db });
}

/** One event of the stream, as the spec writes it. */
export type ChatEvent = { type: string; [k: string]: unknown };

/** What a POST /v1/ai-chat/stream gave: the HTTP status and, for 200, the events in order. */
export interface StreamResult {
  status: number;
  contentType: string | null;
  events: ChatEvent[];
  /** The JSON body of an error status. */
  body?: { detail?: string; code?: string };
}

/**
 * Sends a message and reads the whole event stream (`data: {json}` and a blank line each).
 * `onEvent` sees every event as it arrives; aborting `signal` drops the connection mid-stream.
 */
export async function sendMessage(
  edgeUrl: string,
  token: string | null,
  body: unknown,
  opts: { onEvent?: (e: ChatEvent) => void; signal?: AbortSignal } = {},
): Promise<StreamResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${edgeUrl}/v1/ai-chat/stream`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: opts.signal,
  });
  const contentType = res.headers.get('content-type');
  if (!res.ok) return { status: res.status, contentType, events: [], body: await res.json() };
  const events: ChatEvent[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const parts = buffer.split('\n\n');
      buffer = parts.pop() ?? '';
      for (const raw of parts) {
        if (!raw.startsWith('data: ')) continue;
        const event = JSON.parse(raw.slice(6)) as ChatEvent;
        events.push(event);
        opts.onEvent?.(event);
      }
    }
  } catch (err) {
    if (!opts.signal?.aborted) throw err;
  }
  return { status: res.status, contentType, events };
}

/** A GET or DELETE of the chat API with a token: status and parsed body (null for 204). */
export async function chatApi(edgeUrl: string, token: string | null, method: 'GET' | 'DELETE', path: string) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await fetch(`${edgeUrl}${path}`, { method, headers });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

/** The event types of a stream, in order (content events merged into one "content"). */
export function shape(events: ChatEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) if (!(e.type === 'content' && out.at(-1) === 'content')) out.push(e.type);
  return out;
}

/** The answer's text: the content events joined in order. */
export function answerText(events: ChatEvent[]): string {
  return events
    .filter((e) => e.type === 'content')
    .map((e) => e.content)
    .join('');
}
