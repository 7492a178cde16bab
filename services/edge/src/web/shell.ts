import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import type { FastifyReply } from 'fastify';
import type { EdgeFastify } from '../oauth/routes.ts';
import type { WebUser } from './auth.ts';
import { esc } from './escape.ts';

/** Only our own files: no inline scripts, no other origins, no framing. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const BASE_CSS = new URL('./client/base.css', import.meta.url).pathname;

/**
 * The HTML of every page of a web app: the shared stylesheet, the app's own one if it has it, and
 * its bundle; the session's CSRF token and the user's name in meta tags for the client.
 */
export function appShell(app: string, title: string, user: WebUser, css: boolean): string {
  return `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${esc(user.csrf)}">
<meta name="studium-user" content="${esc(user.principal.full_name || user.principal.user)}">
<title>${esc(title)} — Studium</title>
<link rel="stylesheet" href="/assets/web/base.css">
${css ? `<link rel="stylesheet" href="/assets/${app}/app.css">` : ''}
<script type="module" src="/assets/${app}/app.js"></script>
</head>
<body><div id="app"></div><noscript>Для этой страницы нужен JavaScript.</noscript></body>
</html>
`;
}

/** Sends a page's HTML with the headers every web page gets. */
export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .send(body);
}

/** A client entry bundled once, on first request (preact + htm, the chat page's stack). */
export function bundler(entry: string): () => Promise<string> {
  let bundle: Promise<string> | null = null;
  return () => {
    bundle ??= build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    }).then((r) => r.outputFiles[0].text);
    bundle.catch(() => {
      bundle = null;
    });
    return bundle;
  };
}

/** GET /assets/web/base.css: the stylesheet shared by every web app (layout, nav, forms, notices). */
export function registerBaseAssets(app: EdgeFastify): void {
  app.get('/assets/web/base.css', async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await readFile(BASE_CSS)),
  );
}

/** GET /assets/<app>/app.js (and app.css when the app has one). */
export function registerAppAssets(app: EdgeFastify, name: string, entry: string, css?: string): void {
  const script = bundler(entry);
  app.get(`/assets/${name}/app.js`, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await script()),
  );
  if (css) {
    app.get(`/assets/${name}/app.css`, async (_request, reply) =>
      reply
        .type('text/css; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(await readFile(css)),
    );
  }
}
