import type { McpServer } from '@modelcontextprotocol/server';
import { INVALID_ARGUMENTS, type Principal, type ToolContract } from '@studium/contracts';
import { type Bus, Failure, type Logger, type ReplyCache } from '@studium/platform';
import type { z } from 'zod';
import type { AuditLog } from './audit.ts';
import type { HomeworkFiles } from './homework-files.ts';
import type { Metrics } from './metrics.ts';
import type { RateLimiter } from './rate-limit.ts';
import { dataResult, failureResult, rateLimitedResult, refusalResult } from './render.ts';
import { toolSchemas } from './schemas.ts';

/** What a tool call needs besides its arguments. */
export interface CallDeps {
  bus: Bus;
  limiter: RateLimiter;
  audit: AuditLog;
  metrics: Metrics;
  /** Replies of read tools kept for conditional requests (see Bus.request). */
  replies?: ReplyCache;
  /** Where every caught error goes, with the request id. */
  log: Logger;
  /** The object store of homework files (store_homework_file). */
  files?: HomeworkFiles;
}

/** The caller of one HTTP exchange, handed to the MCP layer through authInfo.extra. */
export interface Caller {
  principal: Principal;
  tokenKey: string;
  endpoint: string;
  /** The HTTP request's id, in every log line about the call. */
  requestId?: string;
  /** True when the bearer token is an OAuth access token (not an API token). */
  oauth?: boolean;
}

/**
 * Runs one tool call: scope check, rate limit, one request on the tool's subject, and the
 * rendering of data, refusal or failure. Failures never throw into the SDK (which would turn them
 * into internal text): they become the spec's fixed phrases.
 */
export async function callTool(deps: CallDeps, tool: ToolContract, caller: Caller, args: unknown) {
  const started = performance.now();
  let outcome = 'ok';
  try {
    if (!tool.annotations.readOnlyHint && caller.principal.scope !== 'write') {
      outcome = 'forbidden';
      await deps.audit.record({
        kind: 'write_with_read_token',
        user: caller.principal.user,
        endpoint: caller.endpoint,
        tool: tool.name,
      });
      return failureResult(403);
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      outcome = 'invalid_arguments';
      return refusalResult(invalidArguments(tool, parsed.error));
    }
    const rate = await deps.limiter.check(caller.tokenKey);
    if (!rate.allowed) {
      outcome = 'rate_limited';
      return rateLimitedResult(rate.retryAfter);
    }
    const cache = tool.annotations.readOnlyHint ? deps.replies : undefined;
    // Read-only tools are retried once on another replica (a crashed one costs them nothing); writes are not.
    const idempotent = tool.annotations.readOnlyHint === true;
    const result = await deps.bus.request(tool, caller.principal, parsed.data as never, { cache, idempotent });
    if (result.ok) return dataResult(result.data);
    outcome = 'refused';
    return refusalResult(result.error);
  } catch (err) {
    const status = err instanceof Failure ? err.status : 503;
    const at = { err, reqId: caller.requestId, tool: tool.name, user: caller.principal.user, status };
    // A Failure is the spec's phrase on purpose (a service's 403/404/417, a timeout); anything else is a bug.
    if (err instanceof Failure) deps.log.warn(at, 'tool call failed');
    else deps.log.error(at, 'tool call crashed');
    outcome = `failure_${status}`;
    // A service's 403 (an author calling goal_runs or the review tools of a course they do not
    // teach) is an access violation: it goes to the journal like the edge's own (spec 000).
    if (status === 403) {
      await deps.audit.record({
        kind: 'access_denied',
        user: caller.principal.user,
        endpoint: caller.endpoint,
        tool: tool.name,
        detail: { roles: caller.principal.roles },
      });
    }
    return failureResult(status);
  } finally {
    deps.metrics.toolCalls.labels(tool.name, outcome).inc();
    deps.metrics.toolSeconds.labels(tool.name).observe((performance.now() - started) / 1000);
  }
}

/** Registers a contract's tool on a per-request server. */
export function registerContractTool(server: McpServer, deps: CallDeps, tool: ToolContract, caller: Caller): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: toolSchemas(tool).input,
      outputSchema: toolSchemas(tool).output,
      annotations: { title: tool.title, ...tool.annotations },
    },
    (async (args: unknown) => callTool(deps, tool, caller, args)) as never,
  );
}

/** The refusal for arguments that fail the schema: a missing required parameter or a wrong JSON type. */
export function invalidArguments(tool: ToolContract, error: z.ZodError) {
  // Paths and messages name the field and the rule, never the value: a refusal echoes no input.
  const fields = error.issues.map((i) => ({
    field: i.path.join('.').slice(0, 200) || '(аргументы)',
    problem: i.message.slice(0, 300),
  }));
  return {
    code: INVALID_ARGUMENTS,
    message: `Аргументы не подходят инструменту ${tool.name}: ${fields.map((f) => f.field).join(', ')} — посмотрите его параметры`,
    fields,
  };
}
