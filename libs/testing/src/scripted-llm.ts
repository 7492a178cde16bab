import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the scripted model does with one chat completions request. */
export interface LlmScript {
  /** Answer with this HTTP status and an OpenAI-style error body instead of a stream. */
  status?: number;
  /** Retry-After header of an error status. */
  retryAfter?: string;
  /** The answer's pieces, streamed in order. */
  chunks?: string[];
  /** Delay before the first piece (ms). */
  firstDelayMs?: number;
  /** Delay between pieces (ms). */
  delayMs?: number;
  /** After this many pieces: 'error' sends an error object in the stream, 'close' drops the connection. */
  failAfter?: { chunks: number; how: 'error' | 'close' };
  /**
   * Tool calls the answer makes (after its text), streamed as providers do: the id and name in
   * one piece, the arguments (JSON of an object, or a raw string) in two.
   */
  toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>;
  /** Token counts reported at the end (when the client asked for usage). */
  usage?: { prompt: number; completion: number };
}

/** One request the scripted model received. */
export interface LlmRequest {
  body: {
    model: string;
    stream?: boolean;
    messages: Array<{
      role: string;
      content: string | null;
      tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
      tool_call_id?: string;
    }>;
    stream_options?: { include_usage?: boolean };
    tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  };
  /** True when the client closed the connection before the answer ended. */
  aborted: boolean;
  /** True when the answer was sent to its end. */
  finished: boolean;
}

/** A scripted OpenAI-compatible chat completions server: the only stand-in of the tests. */
export interface ScriptedLlm {
  /** Base URL for an OpenAI client (`…/v1`). */
  url: string;
  requests: LlmRequest[];
  /** The script for the next requests: a fixed one, or one chosen per request (index from 0). */
  script(next: LlmScript | ((req: LlmRequest, index: number) => LlmScript)): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the scripted model on a random local port. */
export async function startScriptedLlm(initial: LlmScript = { chunks: ['Хорошо.'] }): Promise<ScriptedLlm> {
  let choose: (req: LlmRequest, index: number) => LlmScript = () => initial;
  const requests: LlmRequest[] = [];
  const server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    let raw = '';
    for await (const part of req) raw += part;
    const record: LlmRequest = { body: JSON.parse(raw), aborted: false, finished: false };
    const index = requests.push(record) - 1;
    res.on('close', () => {
      if (!record.finished) record.aborted = true;
    });
    const s = choose(record, index);
    if (s.status) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (s.retryAfter) headers['retry-after'] = s.retryAfter;
      res
        .writeHead(s.status, headers)
        .end(JSON.stringify({ error: { message: `scripted ${s.status}`, type: 'scripted' } }));
      record.finished = true;
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: 0, model: record.body.model };
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    const chunks = s.chunks ?? [];
    await sleep(s.firstDelayMs ?? 0);
    for (let i = 0; i < chunks.length; i++) {
      if (res.destroyed) return;
      if (s.failAfter && i === s.failAfter.chunks) {
        // Let the pieces already written reach the client first.
        await sleep(Math.max(20, s.delayMs ?? 0));
        if (s.failAfter.how === 'close') {
          res.destroy();
          return;
        }
        send({ error: { message: 'scripted failure mid-stream', type: 'server_error' } });
        record.finished = true;
        res.end();
        return;
      }
      if (i > 0) await sleep(s.delayMs ?? 0);
      send({ ...base, choices: [{ index: 0, delta: { content: chunks[i] }, finish_reason: null }] });
    }
    if (res.destroyed) return;
    const calls = s.toolCalls ?? [];
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i] as NonNullable<LlmScript['toolCalls']>[number];
      const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
      const half = Math.floor(args.length / 2);
      const piece = (fn: Record<string, string>, id?: string) =>
        send({
          ...base,
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: i, ...(id ? { id, type: 'function' } : {}), function: fn }] },
              finish_reason: null,
            },
          ],
        });
      piece({ name: c.name, arguments: '' }, c.id ?? `call_${index}_${i}`);
      piece({ arguments: args.slice(0, half) });
      piece({ arguments: args.slice(half) });
    }
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: calls.length ? 'tool_calls' : 'stop' }] });
    if (record.body.stream_options?.include_usage && s.usage) {
      send({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: s.usage.prompt,
          completion_tokens: s.usage.completion,
          total_tokens: s.usage.prompt + s.usage.completion,
        },
      });
    }
    res.write('data: [DONE]\n\n');
    record.finished = true;
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      choose = typeof next === 'function' ? next : () => next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
