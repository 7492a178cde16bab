import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { WebAssets } from './assets.ts';
import type { WebUser } from './auth.ts';
import type { AssetName } from './bundles.ts';
import { esc } from './escape.ts';

/** Only our own files: no inline scripts, no other origins, no framing. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** A web app with its own script and stylesheet (bundles.ts). */
export type WebAppName = 'student' | 'cabinet';

/**
 * The HTML of every page of a web app: the shared stylesheet, the app's own one and its bundle
 * (hashed names from the build's manifest); the session's CSRF token and the user's name in meta
 * tags for the client.
 */
export function appShell(assets: WebAssets, app: WebAppName, title: string, user: WebUser): string {
  return `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${esc(user.csrf)}">
<meta name="studium-user" content="${esc(user.principal.full_name || user.principal.user)}">
<title>${esc(title)} — Studium</title>
${assets.iconLink}
${stylesheets(assets, 'base.css', `${app}.css`)}
<script type="module" src="${assets.href(`${app}.js`)}"></script>
</head>
<body><div id="app"></div><noscript>Для этой страницы нужен JavaScript.</noscript></body>
</html>
`;
}

/** `<link rel="stylesheet">` for each built stylesheet, in order. */
export function stylesheets(assets: WebAssets, ...names: AssetName[]): string {
  return names.map((n) => `<link rel="stylesheet" href="${assets.href(n)}">`).join('\n');
}

/**
 * How a page may be kept (docs/web.md, "Caching"):
 * - `private`: per user (the CSRF token and the name are in it): kept by the browser only,
 *   revalidated on every view with its ETag (304 when nothing in it changed);
 * - `shared`: the same for everyone (the chat page): revalidated on every view with its ETag;
 * - `no-store`: never kept (the sign-in form's one-time token, refusals).
 */
export type PageCaching = 'private' | 'shared' | 'no-store';

/** Sends a page's HTML with the headers every web page gets; a matching If-None-Match gets 304. */
export function sendPage(
  reply: FastifyReply,
  status: number,
  body: string,
  caching: PageCaching = 'no-store',
  csp: string = PAGE_CSP,
) {
  reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin');
  if (caching === 'no-store' || status !== 200)
    return reply.code(status).header('cache-control', 'no-store').send(body);
  // The tag covers every byte sent: the asset names of this build, the session's CSRF token, the
  // user's name. A new build, another session or a renamed user is a new page.
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  reply.header('cache-control', caching === 'private' ? 'private, no-cache' : 'no-cache').header('etag', etag);
  if (matches(reply.request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.code(200).send(body);
}

/** If-None-Match against one tag (a list, weak forms, `*`: RFC 9110 §13.1.2, weak comparison). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header
    .slice(0, 4096)
    .split(',')
    .some((t) => t.trim().replace(/^W\//, '') === etag);
}
