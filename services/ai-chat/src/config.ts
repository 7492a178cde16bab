import { TUTOR_TOOL_ROUNDS } from '@studium/contracts';
import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Environment of the ai-chat service. */
export const AiChatConfig = BaseConfig.extend({
  /** Base URL of an OpenAI-compatible API (OpenAI, vLLM, Ollama, LM Studio); empty means OpenAI's own. */
  AI_BASE_URL: z.string().default(''),
  /** The provider's API key; local servers usually take any value. */
  AI_API_KEY: z.string().default(''),
  /** The model's name at the provider; empty means no model is connected (the chat says so). */
  AI_MODEL: z.string().default(''),
  /** Retries of a refused request (429, 5xx, connection) before the first token, with backoff. */
  AI_MAX_RETRIES: z.coerce.number().int().min(0).default(2),
  /** How long to wait for the first token (retries included). */
  AI_FIRST_TOKEN_TIMEOUT_MS: ms(60_000),
  /** Longest silence of the model between two pieces of the answer. */
  AI_IDLE_TIMEOUT_MS: ms(30_000),
  /** Longest answer, from request to last token. */
  AI_ANSWER_TIMEOUT_MS: ms(300_000),
  /** max_tokens of an answer; 0 leaves it to the provider. */
  AI_MAX_TOKENS: z.coerce.number().int().min(0).default(0),
  /** Answers one teacher may have in progress at once (all replicas together). */
  AI_CHAT_ACTIVE_PER_USER: z.coerce.number().int().min(1).default(3),
  /** How often an answer in progress tells the edge it is alive. */
  AI_CHAT_HEARTBEAT_MS: ms(1_000),
  /** Pieces of an answer arriving within this many ms share one frame to the edge (the first goes at once); 0 sends each. */
  AI_CHAT_COALESCE_MS: z.coerce.number().int().min(0).default(50),
  /** An answer whose caller (the edge) sent no `alive` for this long is aborted and not saved. */
  AI_CHAT_CALLER_TIMEOUT_MS: ms(5_000),
  /** How long the edge may take to run one round of the tutor's tool calls. */
  AI_TUTOR_TOOLS_TIMEOUT_MS: ms(30_000),
  /** Model rounds of one tutor turn (each may call tools); past them the turn ends with an error. */
  AI_TUTOR_TOOL_ROUNDS: z.coerce.number().int().min(1).max(50).default(TUTOR_TOOL_ROUNDS),
});
export type AiChatConfig = z.infer<typeof AiChatConfig>;

/** The service's PostgreSQL schema. */
export const SCHEMA = 'ai_chat';
