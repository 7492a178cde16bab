import OpenAI from 'openai';
import type { ChatDelta, ChatModel, ModelMessage, ModelTool, ModelToolCall } from './model.ts';
import { ModelError } from './model.ts';

/** Where and how to reach an OpenAI-compatible chat completions endpoint. */
export interface OpenAiModelOptions {
  /** Empty: OpenAI's own API. */
  baseUrl: string;
  apiKey: string;
  model: string;
  maxRetries: number;
  firstTokenTimeoutMs: number;
  idleTimeoutMs: number;
  answerTimeoutMs: number;
  maxTokens: number;
}

/**
 * Any OpenAI-compatible chat completions endpoint with streaming (OpenAI, vLLM, Ollama, LM Studio,
 * llama.cpp server), through the official client. The client retries 429, 5xx and connection
 * errors before the stream opens (with backoff, honouring Retry-After); once text flows nothing is
 * retried. Three deadlines: the first token, the silence between pieces, the whole answer.
 */
export class OpenAiChatModel implements ChatModel {
  private readonly client: OpenAI;
  readonly name: string;

  constructor(private readonly opts: OpenAiModelOptions) {
    this.name = opts.model;
    this.client = new OpenAI({
      baseURL: opts.baseUrl || undefined,
      // Local servers take any key; the client insists on one.
      apiKey: opts.apiKey || 'none',
      maxRetries: opts.maxRetries,
      timeout: opts.firstTokenTimeoutMs,
    });
  }

  async *streamChat(messages: ModelMessage[], signal: AbortSignal, tools?: ModelTool[]): AsyncIterable<ChatDelta> {
    const ctl = new AbortController();
    let expired: 'first' | 'idle' | 'total' | null = null;
    const expire = (which: 'first' | 'idle' | 'total') => () => {
      expired = which;
      ctl.abort();
    };
    const forward = () => ctl.abort();
    signal.addEventListener('abort', forward, { once: true });
    let idle = setTimeout(expire('first'), this.opts.firstTokenTimeoutMs);
    const total = setTimeout(expire('total'), this.opts.answerTimeoutMs);
    let started = false;
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.opts.model,
          messages: messages.map(wireMessage),
          ...(tools?.length
            ? { tools: tools.map((t) => ({ type: 'function' as const, function: t })), tool_choice: 'auto' as const }
            : {}),
          stream: true,
          stream_options: { include_usage: true },
          ...(this.opts.maxTokens > 0 ? { max_tokens: this.opts.maxTokens } : {}),
        },
        { signal: ctl.signal },
      );
      // Tool calls come in pieces by index: the id and name first, the arguments in parts.
      const calls: ModelToolCall[] = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        const content = delta?.content;
        for (const piece of delta?.tool_calls ?? []) {
          const call = calls[piece.index] ?? { id: '', name: '', arguments: '' };
          calls[piece.index] = call;
          if (piece.id) call.id = piece.id;
          if (piece.function?.name) call.name += piece.function.name;
          if (piece.function?.arguments) call.arguments += piece.function.arguments;
        }
        if (content || delta?.tool_calls?.length || started) {
          started = true;
          clearTimeout(idle);
          idle = setTimeout(expire('idle'), this.opts.idleTimeoutMs);
        }
        if (content) yield { content };
        if (chunk.usage) {
          yield { usage: { input: chunk.usage.prompt_tokens, output: chunk.usage.completion_tokens } };
        }
      }
      // The client's stream ends quietly, as if the answer were whole, when its request is aborted
      // mid-stream (a deadline or the caller's cancel): a cut answer must fail, never pass as complete.
      if (ctl.signal.aborted) throw new Error('stream aborted');
      const whole = calls.filter(Boolean);
      if (whole.length) yield { toolCalls: whole };
    } catch (err) {
      throw classify(err, expired, signal.aborted, started);
    } finally {
      clearTimeout(idle);
      clearTimeout(total);
      signal.removeEventListener('abort', forward);
    }
  }
}

/** Turns the client's errors into the failures the teacher is told about. */
export function classify(err: unknown, expired: string | null, cancelled: boolean, started: boolean): ModelError {
  if (cancelled) return new ModelError('cancelled', 'cancelled by the caller');
  if (expired) return new ModelError('timeout', `model deadline passed (${expired})`);
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new ModelError('timeout', err.message);
  if (err instanceof OpenAI.APIConnectionError) {
    return new ModelError(started ? 'broken' : 'unreachable', err.message);
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    if (status === 429) return new ModelError('rate_limited', err.message, status);
    if (status === 401 || status === 403) return new ModelError('unauthorized', err.message, status);
    if (status !== undefined && status >= 500) return new ModelError('unavailable', err.message, status);
    if (status !== undefined) return new ModelError('rejected', err.message, status);
    // An error object inside the stream (no HTTP status): the provider gave up mid-answer.
    return new ModelError('unavailable', err.message);
  }
  return new ModelError(started ? 'broken' : 'unreachable', (err as Error)?.message ?? String(err));
}

/** A message in the chat completions format. */
function wireMessage(m: ModelMessage): OpenAI.ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', content: m.content, tool_call_id: m.tool_call_id ?? '' };
  if (m.role === 'assistant' && m.tool_calls?.length) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.tool_calls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      })),
    };
  }
  return { role: m.role, content: m.content } as OpenAI.ChatCompletionMessageParam;
}
