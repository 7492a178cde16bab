import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from '@studium/platform';
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { bundler } from '../web/shell.ts';

/** The edge's fastify app, as the chat registers on it. */
export type ChatHost = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger
>;

const WEB = new URL('./web/', import.meta.url).pathname;
const KATEX = join(dirname(createRequire(import.meta.url).resolve('katex/package.json')), 'dist');

const PAGE = `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ИИ-ассистент учителя — Studium</title>
<link rel="stylesheet" href="/chat/assets/katex.min.css">
<link rel="stylesheet" href="/chat/assets/chat.css">
<script type="module" src="/chat/assets/chat.js"></script>
</head>
<body><div id="app"></div><noscript>Для чата нужен JavaScript.</noscript></body>
</html>
`;

/** Only our own files: no inline scripts, no other origins. KaTeX sets inline styles on its spans. */
export const CHAT_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The page's script: preact + htm, marked + KaTeX, DOMPurify, bundled once from web/ on first request. */
const chatScript = bundler(join(WEB, 'main.ts'));

/**
 * Serves the teacher's chat page at /chat and its assets under /chat/assets/. Nothing comes from
 * another origin: the script is bundled from node_modules, KaTeX's stylesheet and fonts are
 * served from its package.
 */
export async function registerChatPage(app: ChatHost): Promise<void> {
  const page = async (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CHAT_PAGE_CSP)
      .header('cache-control', 'no-cache')
      .send(PAGE);
  app.get('/chat', page);
  app.get('/chat/', page);
  app.get('/chat/assets/chat.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await chatScript()),
  );
  app.get('/chat/assets/chat.css', async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await readFile(join(WEB, 'chat.css'))),
  );
  app.get('/chat/assets/katex.min.css', async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(await readFile(join(KATEX, 'katex.min.css'))),
  );
  app.get<{ Params: { file: string } }>('/chat/assets/fonts/:file', async (request, reply) => {
    const file = request.params.file;
    const type = /^KaTeX_[A-Za-z0-9_-]+\.(woff2|woff|ttf)$/.exec(file)?.[1];
    if (!type) return reply.code(404).send();
    const body = await readFile(join(KATEX, 'fonts', file)).catch(() => null);
    if (!body) return reply.code(404).send();
    return reply.type(`font/${type}`).header('cache-control', 'public, max-age=86400').send(body);
  });
}
