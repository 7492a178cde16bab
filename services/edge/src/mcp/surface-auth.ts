import { isAuthor, phraseFor, type ToolContract } from '@studium/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit.ts';
import type { Authenticator } from '../auth.ts';
import type { Metrics } from '../metrics.ts';
import type { Caller } from './tools.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller of an MCP endpoint, set by its onRequest hook. */
    caller?: Caller;
    /** True when `/authoring` refuses the caller (no author role); see authorGate. */
    authorRefused?: boolean;
  }
}

/** What the endpoints' authentication needs. */
export interface SurfaceAuthDeps {
  auth: Authenticator;
  audit: AuditLog;
  metrics: Metrics;
  /** With OAuth: the endpoint's resource URL and its protected-resource metadata URL. */
  oauth?: { resource: string; metadataUrl: string };
}

/** The scopes an endpoint asks for in its challenges. */
const CHALLENGE_SCOPE = 'read write';

/** The WWW-Authenticate value of a refusal (RFC 6750, with RFC 9728's resource_metadata). */
export function challenge(deps: SurfaceAuthDeps, error?: string, description?: string, scope = CHALLENGE_SCOPE) {
  const parts = ['Bearer'];
  const params: string[] = [];
  if (error) params.push(`error="${error}"`);
  if (description) params.push(`error_description="${description.replace(/["\\]/g, '')}"`);
  if (deps.oauth) params.push(`resource_metadata="${deps.oauth.metadataUrl}"`, `scope="${scope}"`);
  return params.length ? `${parts[0]} ${params.join(', ')}` : parts[0];
}

/**
 * The onRequest hook of an MCP endpoint: the bearer token is resolved (and `/authoring` checks the
 * author role) before a byte of the body is read, so an unauthenticated client cannot make the edge
 * buffer and parse bodies. Sets `request.caller` for the handler.
 */
export function surfaceAuth(path: string, deps: SurfaceAuthDeps, requiresAuthor: boolean) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    const result = await deps.auth.authenticate(header, deps.oauth?.resource);
    if (!result.ok) {
      deps.metrics.httpRejections.labels(path, String(result.status)).inc();
      if (result.status === 503)
        request.log.warn({ reqId: request.id, reason: result.reason }, 'authentication failed');
      if (result.status === 401) {
        // No token at all: the challenge that starts a client's authorization flow (no error code).
        const missing = !header?.trim() && deps.oauth;
        reply.header('www-authenticate', missing ? challenge(deps) : challenge(deps, 'invalid_token', result.reason));
      }
      if (result.status === 403) reply.header('www-authenticate', challenge(deps, 'insufficient_scope', result.reason));
      return reply.code(result.status).send(rpcFailure(phraseFor(result.status)));
    }
    const { principal, tokenKey, oauth } = result;
    request.caller = { principal, tokenKey, endpoint: path, requestId: String(request.id), oauth };
    // A caller without the author role is refused by authorGate once the (bounded) body is read:
    // the audit row names the tool the caller tried. The token itself is valid, so the body costs
    // no more than any authenticated request's.
    if (requiresAuthor && !isAuthor(principal.roles)) request.authorRefused = true;
  };
}

/**
 * The preHandler of `/authoring`: a caller without the author role gets the 403 of the spec
 * («нарушение должно попадать в журнал как нарушение»), audited with the tool it called (null for
 * anything but tools/call). Sent before the MCP layer sees the request.
 */
export function authorGate(path: string, deps: SurfaceAuthDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.authorRefused && request.caller) return refuseNonAuthor(path, deps, request, reply);
  };
}

/**
 * The 403 and audit row of a caller without the author role on `/authoring`: from authorGate, or
 * from the error handler when the body never parsed (not JSON, too large) — refused all the same.
 */
export async function refuseNonAuthor(
  path: string,
  deps: Pick<SurfaceAuthDeps, 'audit' | 'metrics'>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const caller = request.caller as Caller;
  deps.metrics.httpRejections.labels(path, '403').inc();
  const body = request.body as { method?: unknown; params?: { name?: unknown } } | undefined;
  const name = body?.method === 'tools/call' ? body.params?.name : undefined;
  await deps.audit.record({
    kind: 'author_role_required',
    user: caller.principal.user,
    endpoint: path,
    // The name as sent, cut to an identifier's length: the log keeps no caller's essay.
    tool: typeof name === 'string' ? name.slice(0, 128) : undefined,
    detail: {
      roles: caller.principal.roles,
      method: typeof body?.method === 'string' ? body.method.slice(0, 64) : null,
    },
  });
  return reply.code(403).send(rpcFailure(phraseFor(403)));
}

/** A JSON-RPC error for a request refused before its body was read (its id is not known yet). */
export function rpcFailure(message: string) {
  return { jsonrpc: '2.0', id: null, error: { code: -32001, message } };
}

/**
 * The step-up challenge of an OAuth caller with only `read` calling a write tool (MCP authorization
 * spec, insufficient scope): HTTP 403 with `WWW-Authenticate: … error="insufficient_scope", scope=…`,
 * so the client can ask the user for `write`. API tokens keep their in-band refusal. True when sent.
 */
export async function scopeChallenge(
  deps: SurfaceAuthDeps,
  tools: readonly ToolContract[],
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const caller = request.caller;
  if (!caller?.oauth || caller.principal.scope === 'write') return false;
  const body = request.body as { method?: string; params?: { name?: unknown } } | undefined;
  if (body?.method !== 'tools/call') return false;
  const tool = tools.find((t) => t.name === body.params?.name);
  if (!tool || tool.annotations.readOnlyHint) return false;
  deps.metrics.httpRejections.labels(caller.endpoint, '403').inc();
  await deps.audit.record({
    kind: 'write_with_read_token',
    user: caller.principal.user,
    endpoint: caller.endpoint,
    tool: tool.name,
    detail: { oauth: true },
  });
  reply
    .code(403)
    .header('www-authenticate', challenge(deps, 'insufficient_scope', 'write scope required', CHALLENGE_SCOPE))
    .send(rpcFailure(phraseFor(403)));
  return true;
}
