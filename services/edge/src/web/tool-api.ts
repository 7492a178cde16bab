import { type Principal, store_homework_file, type ToolContract } from '@studium/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeFastify } from '../fastify.ts';
import { storeHomeworkFiles } from '../mcp/homework-files.ts';
import type { HomeworkFiles } from '../mcp/homework-store.ts';
import { type CallDeps, type Caller, callTool } from '../mcp/tools.ts';
import type { WebAuth } from './auth.ts';

export interface ToolApiDeps {
  call: CallDeps;
  files: HomeworkFiles;
  auth: WebAuth;
  /** Largest body of a tool call (the MCP endpoints' limit). */
  bodyLimit: number;
  /** Largest body of store_homework_file (the files, base64). */
  uploadBodyLimit: number;
}

/** What a page receives: the bus reply as the tool's structuredContent, or a failure's fixed phrase. */
export type WebOutcome =
  | { ok: true; data: unknown }
  | { ok: false; error: { code: string; message: string } }
  | { ok: false; failure: string };

/** The caller of a web request, as callTool takes it: the session stands in for the token. */
export function webCaller(request: FastifyRequest, app: string): Caller {
  const user = request.webUser;
  if (!user) throw new Error('webCaller outside WebAuth.api');
  return {
    principal: user.principal,
    tokenKey: `web:${user.session.key}`,
    endpoint: `web:${app}`,
    requestId: request.id,
  };
}

/**
 * POST /api/<app>/tools/<name>: one tool of the app's list, called as the signed-in user through
 * the MCP tools' own path (callTool: scope, argument check, rate limit per session, the bus request
 * with the principal) — so a page obeys every rule and refusal an agent does. The body is the
 * tool's arguments (JSON object). Session and CSRF are checked before the body is read.
 */
export async function registerToolApi(
  app: EdgeFastify,
  deps: ToolApiDeps,
  name: string,
  tools: ToolContract[],
  /** Who may call them (the app's `allow`); absent = every signed-in user. */
  allow?: (principal: Principal) => boolean,
): Promise<void> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  await app.register(async (scope) => {
    scope.setErrorHandler((err: { statusCode?: number }, request, reply) => {
      const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
      if (status >= 500) request.log.error({ err, reqId: request.id }, 'web api failed');
      const failure =
        status === 413
          ? 'Запрос слишком большой.'
          : status < 500
            ? 'Запрос не разобран: тело — JSON-объект с аргументами.'
            : 'Учебный сервис сейчас недоступен, попробуйте позже.';
      return reply.code(status).send({ ok: false, failure });
    });
    const run = async (request: FastifyRequest, reply: FastifyReply, tool: ToolContract) => {
      const caller = webCaller(request, name);
      if (allow && !allow(caller.principal)) {
        // An access violation goes to the journal, like /authoring's (spec 000).
        await deps.call.audit.record({
          kind: 'author_role_required',
          user: caller.principal.user,
          endpoint: caller.endpoint,
          tool: tool.name,
        });
        return reply.code(403).send({ ok: false, failure: 'Эта операция вам недоступна.' });
      }
      const result =
        tool.name === store_homework_file.name
          ? await storeHomeworkFiles(deps.call, caller, deps.files, request.body)
          : await callTool(deps.call, tool, caller, request.body);
      reply.header('cache-control', 'no-store');
      if ('structuredContent' in result && result.structuredContent) return reply.send(result.structuredContent);
      return reply.send({ ok: false, failure: result.content[0]?.text ?? '' });
    };
    if (byName.has(store_homework_file.name)) {
      scope.post(
        `/api/${name}/tools/${store_homework_file.name}`,
        { onRequest: deps.auth.api, bodyLimit: deps.uploadBodyLimit },
        (request, reply) => run(request, reply, store_homework_file as ToolContract),
      );
    }
    scope.post<{ Params: { tool: string } }>(
      `/api/${name}/tools/:tool`,
      { onRequest: deps.auth.api, bodyLimit: deps.bodyLimit },
      async (request, reply) => {
        const tool = byName.get(request.params.tool);
        if (!tool || tool.name === store_homework_file.name) {
          return reply.code(404).send({ ok: false, failure: 'Такой операции у этой страницы нет.' });
        }
        return run(request, reply, tool);
      },
    );
  });
}
