import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

/** Environment of the edge. */
export const EdgeConfig = BaseConfig.extend({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).default(8080),
  /** Host header values accepted (DNS-rebinding protection); add the ingress host in deployment. */
  ALLOWED_HOSTS: list.default(['localhost', '127.0.0.1', '[::1]']),
  /** Origins accepted from browsers; requests without Origin (agents) always pass. */
  ALLOWED_ORIGINS: list.default(['http://localhost', 'http://127.0.0.1']),
  /** How long a resolved token is trusted without asking enrollment again. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** Tool calls per token per minute; 0 disables the limit. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /**
   * Memory for the kept replies of read tools (MB), revalidated with their services on every call
   * (conditional requests: a current reply costs the service a stamp read, not a query); 0 keeps none.
   */
  REPLY_CACHE_MB: z.coerce.number().min(0).default(64),
  /** How often the edge tells ai-chat that a chat client is still reading its answer. */
  AI_CHAT_ALIVE_MS: z.coerce.number().int().positive().default(1_000),
  /** Silence of ai-chat during an answer after which the client gets an `error` event. */
  AI_CHAT_STALL_MS: z.coerce.number().int().positive().default(4_000),
  /** Where the platform's web pages live (links in fallbacks). */
  PUBLIC_URL: z.string().default('http://127.0.0.1:8080'),
});
export type EdgeConfig = z.infer<typeof EdgeConfig>;

/** The edge's own schema: only the audit log. */
export const SCHEMA = 'edge';
