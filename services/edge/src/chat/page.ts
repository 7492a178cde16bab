import type { Logger } from '@studium/platform';
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

/** The edge's fastify app, as the chat registers on it. */
export type ChatHost = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger
>;

/** Serves the chat's web page at /chat (filled in with the page's bundle). */
export async function registerChatPage(app: ChatHost): Promise<void> {
  app.get('/chat', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send('<!doctype html><title>ИИ-чат</title>'),
  );
}
