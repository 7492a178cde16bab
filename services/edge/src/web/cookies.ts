import type { FastifyReply, FastifyRequest } from 'fastify';

/** The session cookie of the web pages. */
export const SESSION_COOKIE = 'studium_session';
/** The sign-in form's own CSRF cookie (double submit), set before there is a session. */
export const LOGIN_COOKIE = 'studium_login';

/** One cookie of the request; header and value are bounded, so a huge Cookie header costs nothing. */
export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header || header.length > 8192) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return value.length <= 256 ? value : null;
    }
  }
  return null;
}

/**
 * Sets a cookie the way every web cookie here is set: HttpOnly, SameSite=Lax, path /, Secure when
 * the request came over TLS (directly or through a trusted proxy); `maxAgeS` 0 deletes it.
 */
export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAgeS: number) {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeS}`];
  if (request.protocol === 'https') parts.push('Secure');
  // fastify appends to Set-Cookie by itself: passing the previous values again sent them twice.
  reply.header('set-cookie', parts.join('; '));
}
