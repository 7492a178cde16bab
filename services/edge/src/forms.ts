import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * Parses url-encoded form bodies of the routes in `scope` into a plain object of fields, up to
 * `bodyLimit` bytes (fastify refuses a larger body with 413 before it is read whole).
 */
export function parseForms(scope: Pick<FastifyInstance, 'addContentTypeParser'>, bodyLimit: number): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_r, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
}

/** Sends a server-rendered HTML page (a sign-in or consent form): never cached, never framed, with its CSP. */
export function sendHtml(reply: FastifyReply, status: number, body: string, csp: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', csp)
    .send(body);
}
