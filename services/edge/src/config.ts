import { BaseConfig, envFlag } from '@studium/platform';
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
  /** A second port serving only GET /metrics, for Prometheus inside the cluster (any Host); 0: none. */
  METRICS_PORT: z.coerce.number().int().min(0).default(0),
  /** Host header values accepted (DNS-rebinding protection); add the ingress host in deployment. */
  ALLOWED_HOSTS: list.default(['localhost', '127.0.0.1', '[::1]']),
  /** Origins accepted from browsers; requests without Origin (agents) always pass. */
  ALLOWED_ORIGINS: list.default(['http://localhost', 'http://127.0.0.1']),
  /** How long a resolved token is trusted without asking enrollment again. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** Most resolved tokens the edge keeps (least recently used dropped first). */
  AUTH_CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).default(10_000),
  /** How long a token enrollment refused is refused again without asking; 0 asks every time. */
  AUTH_NEGATIVE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /** Largest request body of an MCP endpoint (tool calls), KB; larger is HTTP 413 before parsing. */
  MCP_BODY_LIMIT_KB: z.coerce.number().int().min(1).default(512),
  /** A request's headers and body must arrive within this (node's requestTimeout), ms; a body still arriving is answered 408. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** A request's headers must arrive within this (node's headersTimeout), ms. */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10_000),
  /** A body that sends nothing for this long is answered 408 and loses its connection (slow trickle), ms. */
  HTTP_BODY_IDLE_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Upload bodies (store_homework_file, past MCP_BODY_LIMIT_KB) read at the same time, all callers
   * together, MB. Each holds the upload limit (~55 MB) and takes about three times that while read
   * and parsed: the default reads one at a time, within the edge's 512 Mi (bench:hostile).
   */
  UPLOAD_BODIES_MB: z.coerce.number().int().min(1).default(64),
  /** Upload bodies (past MCP_BODY_LIMIT_KB) one token may send per minute; 0 disables the limit. */
  UPLOADS_PER_MINUTE: z.coerce.number().int().min(0).default(10),
  /** Most JSON-RPC messages in one batch (each counts against the rate limit). */
  MCP_BATCH_MAX: z.coerce.number().int().min(1).default(16),
  /** Access violations written to the audit log per user and kind per minute; the rest are counted only. */
  AUDIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  /** Tool calls per token per minute; 0 disables the limit. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /**
   * Memory for the kept replies of read tools (MB), revalidated with their services on every call
   * (conditional requests: a current reply costs the service a stamp read, not a query); 0 keeps none.
   */
  REPLY_CACHE_MB: z.coerce.number().min(0).default(64),
  /** HMAC key of homework file download URLs (the homework service signs them with the same key). */
  FILE_URL_SECRET: z.string().optional(),
  /** How often the edge tells ai-chat that a chat client is still reading its answer. */
  AI_CHAT_ALIVE_MS: z.coerce.number().int().positive().default(1_000),
  /** Silence of ai-chat during an answer after which the client gets an `error` event. */
  AI_CHAT_STALL_MS: z.coerce.number().int().positive().default(4_000),
  /** Where the platform's web pages live (links in fallbacks). */
  PUBLIC_URL: z.string().default('http://127.0.0.1:8080'),
  /** The OAuth authorization server for MCP clients that connect by URL; "false" turns it off. */
  OAUTH_ENABLED: envFlag(true),
  /**
   * The issuer URL as clients see it (behind an ingress: its https URL); empty = PUBLIC_URL + /oauth.
   * Endpoints' resource URLs are PUBLIC_URL + /mcp, /authoring.
   */
  OAUTH_ISSUER: z.string().default(''),
  /**
   * What a client's redirect URI may be (docs/decisions.md, "Redirect rules"): `loopback`
   * (http on 127.0.0.1, [::1], localhost, any port), `private-use` (native apps' `com.example.app:/cb`),
   * `https` (any https URI on the default port), or exact https URIs (hosted assistants).
   */
  OAUTH_REDIRECTS: list.default(['loopback', 'private-use', 'https']),
  /** Browser origins of hosted assistants allowed to call the token endpoints and registration (CORS). */
  OAUTH_CORS_ORIGINS: list.default([]),
  /**
   * Other origins clients reach the edge by (resource metadata per Host); a loopback PUBLIC_URL
   * adds its twins (localhost, 127.0.0.1, [::1] on the same port) by itself.
   */
  OAUTH_RESOURCE_ORIGINS: list
    .refine((xs) => xs.every((x) => URL.canParse(x)), 'every entry must be an origin such as https://studium.example')
    .default([]),
  /** Lifetime of an OAuth access token, seconds. */
  OAUTH_ACCESS_TTL_S: z.coerce.number().int().min(30).default(3600),
  /** Lifetime of a refresh token and its grant, seconds (rotated on every use). */
  OAUTH_REFRESH_TTL_S: z.coerce
    .number()
    .int()
    .min(60)
    .default(30 * 86_400),
  /**
   * Failed sign-ins of one login from one client address per minute (shared by replicas); more are
   * refused from that address with HTTP 429. As many failures of the login from all addresses
   * together only slow attempts on it (LOGIN_SLOWDOWN_MS): the owner is never locked out.
   */
  LOGIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Sign-in attempts per client address per minute (any login, right or wrong); more are HTTP 429. */
  LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** How long an attempt on a login with LOGIN_ATTEMPTS_PER_MINUTE failures this minute waits, ms. */
  LOGIN_SLOWDOWN_MS: z.coerce.number().int().min(0).max(10_000).default(2000),
  /** Lifetime of a web pages' session (the student pages, tutor, author's cabinet), hours; then sign in again. */
  WEB_SESSION_TTL_H: z.coerce.number().int().min(1).max(720).default(168),
  /** Trust X-Forwarded-* from a TLS-terminating proxy (ingress). */
  TRUST_PROXY: envFlag(false),
});
export type EdgeConfig = z.infer<typeof EdgeConfig>;

/** The edge's own schema: only the audit log. */
export const SCHEMA = 'edge';
