/** A message as the model sees it. */
export interface ModelMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** An assistant message's tool calls (the tutor). */
  tool_calls?: ModelToolCall[];
  /** A tool message: the call it answers. */
  tool_call_id?: string;
}

/** A complete tool call of the model: its id, the tool and the arguments as JSON text. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool offered to the model (chat completions `tools`, type function). */
export interface ModelTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A piece of a streamed answer: text, or the provider's token counts (usually last). */
export interface ChatDelta {
  content?: string;
  /** The round's tool calls, whole, once the stream has ended (they arrive in pieces). */
  toolCalls?: ModelToolCall[];
  usage?: { input: number; output: number };
}

/** A chat model that streams its answer (see DESIGN.md, "AI providers"). */
export interface ChatModel {
  /** The model's name, as metrics and stored answers label it. */
  readonly name: string;
  /** Streams the answer; aborting `signal` stops the provider's request. Throws {@link ModelError}. */
  streamChat(messages: ModelMessage[], signal: AbortSignal, tools?: ModelTool[]): AsyncIterable<ChatDelta>;
}

/** Why a model call failed. */
export type ModelFailure =
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'unauthorized'
  | 'rejected'
  | 'unreachable'
  | 'broken'
  | 'cancelled';

/** A failed model call, classified so the teacher can be told what happened. */
export class ModelError extends Error {
  constructor(
    readonly kind: ModelFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
