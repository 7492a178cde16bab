import type { McpServer } from '@modelcontextprotocol/server';
import { type Principal, type ToolContract, UNTRUSTED } from '@studium/contracts';
import { type Bus, Failure, type Logger, type ReplyCache, SpanKind, tracer } from '@studium/platform';
import type { AuditLog } from '../audit.ts';
import type { Metrics } from '../metrics.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { checkArguments } from './arguments.ts';
import type { HomeworkFiles } from './homework-store.ts';
import { invalidArguments, readOnlyToken } from './refusals.ts';
import { dataResult, failureResult, rateLimitedResult, refusalResult } from './render.ts';
import { toolConfig } from './schemas.ts';

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
export function callTool(
  deps: CallDeps,
  tool: ToolContract,
  caller: Caller,
  args: unknown,
  opts: { rateCounted?: boolean } = {},
) {
  // One trace per tool call: this span is its root, the services' spans hang below it.
  return tracer.startActiveSpan(
    `tool ${tool.name}`,
    { kind: SpanKind.SERVER, attributes: { 'studium.tool': tool.name, 'studium.endpoint': caller.endpoint } },
    async (span) => {
      try {
        const result = await runTool(deps, tool, caller, args, opts);
        if ('isError' in result && result.isError) span.setAttribute('studium.outcome', 'error');
        return result;
      } finally {
        span.end();
      }
    },
  );
}

async function runTool(
  deps: CallDeps,
  tool: ToolContract,
  caller: Caller,
  args: unknown,
  opts: { rateCounted?: boolean },
) {
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
      // /kb answers in its own language with a code (spec 004: a read token sees read tools only);
      // the other endpoints keep the spec's 403 phrase.
      if (tool.surface === 'kb') return refusalResult(readOnlyToken(tool.name));
      return failureResult(403);
    }
    // Counted before the arguments are looked at: invalid calls cost their caller too.
    const rate = opts.rateCounted ? { allowed: true as const } : await deps.limiter.check(caller.tokenKey);
    if (!rate.allowed) {
      outcome = 'rate_limited';
      return rateLimitedResult(rate.retryAfter);
    }
    // Bounded by the call's size: a large call is checked until its first few problems only.
    const parsed = checkArguments(tool.input, args ?? {});
    if (!parsed.success) {
      outcome = 'invalid_arguments';
      return refusalResult(invalidArguments(tool, parsed, args));
    }
    const cache = tool.annotations.readOnlyHint ? deps.replies : undefined;
    // Read-only tools are retried once on another replica (a crashed one costs them nothing); writes are not.
    const idempotent = tool.annotations.readOnlyHint === true;
    const result = await deps.bus.request(tool, caller.principal, parsed.data as never, { cache, idempotent });
    if (result.ok) return dataResult(tool.studentText ? markUntrusted(result.data, tool.studentText) : result.data);
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
    deps.log.debug({ reqId: caller.requestId, tool: tool.name, outcome }, 'tool call');
    deps.metrics.toolCalls.labels(tool.name, outcome).inc();
    deps.metrics.toolSeconds.labels(tool.name).observe((performance.now() - started) / 1000);
  }
}

/** Registers a contract's tool on a per-request server. */
export function registerContractTool(server: McpServer, deps: CallDeps, tool: ToolContract, caller: Caller): void {
  server.registerTool(
    tool.name,
    {
      ...toolConfig(tool),
    },
    (async (args: unknown) => callTool(deps, tool, caller, args)) as never,
  );
}

/**
 * A copy of a reply with every object at `paths` marked `trust: "untrusted"` (students' words:
 * data for the curator's agent, never instructions). Copies, so kept replies stay as they came.
 */
export function markUntrusted(data: unknown, paths: readonly string[]): unknown {
  let out = data;
  for (const path of paths) out = markAt(out, path ? path.split('.') : []);
  return out;
}

function markAt(value: unknown, steps: string[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (steps.length === 0) return Array.isArray(value) ? value : { ...value, trust: UNTRUSTED };
  const [step, ...rest] = steps as [string, ...string[]];
  const key = step.endsWith('[]') ? step.slice(0, -2) : step;
  const obj = value as Record<string, unknown>;
  const inner = obj[key];
  const next = step.endsWith('[]') && Array.isArray(inner) ? inner.map((v) => markAt(v, rest)) : markAt(inner, rest);
  return inner === undefined ? value : { ...obj, [key]: next };
}
