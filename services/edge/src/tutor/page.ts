import { CHAT_PAGE_CSP, type ChatHost } from '../chat/page.ts';
import type { WebAssets } from '../web/assets.ts';
import type { WebAuth } from '../web/auth.ts';
import { esc } from '../web/escape.ts';
import { sendPage, stylesheets } from '../web/shell.ts';

/** The tutor's page for a session's CSRF token. */
export const tutorPage = (assets: WebAssets, csrf: string) => `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${esc(csrf)}">
<title>Репетитор — Studium</title>
${assets.iconLink}
${stylesheets(assets, 'katex.css', 'chat.css', 'tutor.css')}
<script type="module" src="${assets.href('tutor.js')}"></script>
</head>
<body><div id="app"></div><noscript>Для занятия нужен JavaScript.</noscript></body>
</html>
`;

/**
 * The tutor's page at /tutor (signed in by the web session, the CSRF token in a meta tag) (`?lesson=<id>` or `?course=<id>` opens a new conversation,
 * `?conversation=<id>` an earlier one). It shares the chat's stylesheet and KaTeX's (built assets).
 */
export async function registerTutorPage(app: ChatHost, web: WebAuth, assets: WebAssets): Promise<void> {
  // Signed in by the web pages' session: a visitor without one goes to /login and comes back.
  // The page is per session (its CSRF token): kept privately, revalidated by its ETag.
  const serve = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) =>
    sendPage(reply, 200, tutorPage(assets, request.webUser?.csrf ?? ''), 'private', CHAT_PAGE_CSP);
  app.get('/tutor', { onRequest: web.page }, serve);
  app.get('/tutor/', { onRequest: web.page }, serve);
}
