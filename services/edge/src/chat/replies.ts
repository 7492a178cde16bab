import { CHAT_REFUSAL_STATUS, type ChatRefusalCode, type Refusal } from '@studium/contracts';
import type { FastifyReply } from 'fastify';
import type { ChatEdgeMetrics } from './metrics.ts';

/**
 * The codes of the chat API's own HTTP errors (those before ai-chat answers). Spec 001 names only
 * the statuses; every error body carries a code so a client branches on it, not on the text.
 */
export type ChatErrorCode =
  | 'invalid_token'
  | 'chat_role_required'
  | 'write_scope_required'
  | 'rate_limited'
  | 'invalid_body'
  | 'message_invalid'
  | 'invalid_page'
  | 'chat_unavailable'
  | 'internal_error';

/** An HTTP error of the chat API: `{ detail, code }`, with a Russian detail for the teacher. */
export function sendChatError(
  reply: FastifyReply,
  status: number,
  code: ChatErrorCode | string,
  detail: string,
  extra: Record<string, unknown> = {},
) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send({ detail, code, ...extra });
}

/** The HTTP status of a chat refusal (an unknown code is a bug: 500). */
export function refusalStatus(code: string): number {
  return code in CHAT_REFUSAL_STATUS ? CHAT_REFUSAL_STATUS[code as ChatRefusalCode] : 500;
}

/** Sends ai-chat's refusal as its HTTP status, with the code and details beside the message. */
export function sendRefusal(reply: FastifyReply, route: string, refusal: Refusal, metrics: ChatEdgeMetrics) {
  const { code, message, ...details } = refusal;
  const status = refusalStatus(code);
  metrics.requests.labels(route, String(status)).inc();
  return sendChatError(reply, status, code, message, details);
}
