import type { Logger } from '@studium/platform';
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { WebAssets } from '../web/assets.ts';
import { sendPage, stylesheets } from '../web/shell.ts';

/** The edge's fastify app, as the chat registers on it. */
export type ChatHost = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger
>;

/** The chat page: the same for every teacher (signed in by the token its script asks for). */
export const chatPage = (assets: WebAssets) => `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ИИ-ассистент учителя — Studium</title>
${assets.iconLink}
${stylesheets(assets, 'katex.css', 'chat.css')}
<script type="module" src="${assets.href('chat.js')}"></script>
</head>
<body><div id="app"></div><noscript>Для чата нужен JavaScript.</noscript></body>
</html>
`;

/** Only our own files: no inline scripts, no other origins. KaTeX sets inline styles on its spans. */
export const CHAT_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the teacher's chat page at /chat. Its script (preact + htm, marked + KaTeX, DOMPurify),
 * its stylesheet and KaTeX's, with KaTeX's fonts, are built assets (/assets/…): nothing comes
 * from another origin.
 */
export async function registerChatPage(app: ChatHost, assets: WebAssets): Promise<void> {
  const html = chatPage(assets);
  const serve = async (_request: unknown, reply: import('fastify').FastifyReply) =>
    sendPage(reply, 200, html, 'shared', CHAT_PAGE_CSP);
  app.get('/chat', serve);
  app.get('/chat/', serve);
}
