import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHAT_PAGE_CSP, type ChatHost } from '../chat/page.ts';
import type { WebAuth } from '../web/auth.ts';
import { esc } from '../web/escape.ts';
import { bundler } from '../web/shell.ts';

const WEB = new URL('./web/', import.meta.url).pathname;

const page = (csrf: string) => `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${esc(csrf)}">
<title>Репетитор — Studium</title>
<link rel="stylesheet" href="/chat/assets/katex.min.css">
<link rel="stylesheet" href="/chat/assets/chat.css">
<link rel="stylesheet" href="/tutor/assets/tutor.css">
<script type="module" src="/tutor/assets/tutor.js"></script>
</head>
<body><div id="app"></div><noscript>Для занятия нужен JavaScript.</noscript></body>
</html>
`;

const tutorScript = bundler(join(WEB, 'main.ts'));

/**
 * The tutor's page at /tutor (signed in by the web session, the CSRF token in a meta tag) (`?lesson=<id>` or `?course=<id>` opens a new conversation,
 * `?conversation=<id>` an earlier one). The chat's stylesheet and KaTeX assets are shared with /chat.
 */
export async function registerTutorPage(app: ChatHost, web: WebAuth): Promise<void> {
  // Signed in by the web pages' session: a visitor without one goes to /login and comes back.
  const serve = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CHAT_PAGE_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .send(page(request.webUser?.csrf ?? ''));
  app.get('/tutor', { onRequest: web.page }, serve);
  app.get('/tutor/', { onRequest: web.page }, serve);
  app.get('/tutor/assets/tutor.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await tutorScript()),
  );
  app.get('/tutor/assets/tutor.css', async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await readFile(join(WEB, 'tutor.css'))),
  );
}
