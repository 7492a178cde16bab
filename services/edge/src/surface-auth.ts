import { isAuthor, phraseFor } from '@studium/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from './audit.ts';
import type { Authenticator } from './auth.ts';
import type { Metrics } from './metrics.ts';
import type { Caller } from './tools.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller of an MCP endpoint, set by its onRequest hook. */
    caller?: Caller;
  }
}

/** What the endpoints' authentication needs. */
export interface SurfaceAuthDeps {
  auth: Authenticator;
  audit: AuditLog;
  metrics: Metrics;
}

/**
 * The onRequest hook of an MCP endpoint: the bearer token is resolved (and `/authoring` checks the
 * author role) before a byte of the body is read, so an unauthenticated client cannot make the edge
 * buffer and parse bodies. Sets `request.caller` for the handler.
 */
export function surfaceAuth(path: string, deps: SurfaceAuthDeps, requiresAuthor: boolean) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const result = await deps.auth.authenticate(request.headers.authorization);
    if (!result.ok) {
      deps.metrics.httpRejections.labels(path, String(result.status)).inc();
      if (result.status === 503)
        request.log.warn({ reqId: request.id, reason: result.reason }, 'authentication failed');
      if (result.status === 401) {
        reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${result.reason}"`);
      }
      return reply.code(result.status).send(rpcFailure(phraseFor(result.status)));
    }
    const { principal, tokenKey } = result;
    if (requiresAuthor && !isAuthor(principal.roles)) {
      deps.metrics.httpRejections.labels(path, '403').inc();
      await deps.audit.record({
        kind: 'author_role_required',
        user: principal.user,
        endpoint: path,
        detail: { roles: principal.roles },
      });
      return reply.code(403).send(rpcFailure(phraseFor(403)));
    }
    request.caller = { principal, tokenKey, endpoint: path, requestId: String(request.id) };
  };
}

/** A JSON-RPC error for a request refused before its body was read (its id is not known yet). */
export function rpcFailure(message: string) {
  return { jsonrpc: '2.0', id: null, error: { code: -32001, message } };
}
