import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import {
  checkHomeworkFiles,
  type StagedFile,
  store_homework_file,
  type ToolContract,
  upload_homework_file,
} from '@studium/contracts';
import { Failure } from '@studium/platform';
import { checkArguments } from './arguments.ts';
import { type HomeworkFiles, offerOf } from './homework-store.ts';
import { failureResult, rateLimitedResult, refusalResult } from './render.ts';
import { toolConfig } from './schemas.ts';
import { type CallDeps, type Caller, callTool } from './tools.ts';
import { viewHtml } from './ui/views.ts';
import type { UiSupport } from './ui-support.ts';

const WINDOW_URI = 'ui://studium/upload-homework.html';

/**
 * upload_homework_file: an MCP Apps window with a drop zone and «Сдать» for clients that render
 * MCP Apps; the same service answer (lesson link) is the text for the others.
 */
export function registerUploadWindow(server: McpServer, deps: CallDeps, caller: Caller, uiSupported: UiSupport): void {
  registerAppResource(
    server,
    'Сдача файлов домашнего задания',
    WINDOW_URI,
    { description: 'Окно сдачи файлов' },
    async () => ({
      contents: [{ uri: WINDOW_URI, mimeType: RESOURCE_MIME_TYPE, text: await viewHtml('upload-homework') }],
    }),
  );
  registerAppTool(
    server,
    upload_homework_file.name,
    {
      ...toolConfig(upload_homework_file as ToolContract),
      _meta: { ui: { resourceUri: WINDOW_URI } },
    },
    (async (args: unknown) => {
      const result = await callTool(deps, upload_homework_file as ToolContract, caller, args);
      const sc = ('structuredContent' in result ? result.structuredContent : undefined) as
        | { ok?: boolean; data?: Record<string, unknown> }
        | undefined;
      if (!sc?.ok || !sc.data) return result;
      const shown = (await uiSupported(server)) ? 'window' : 'text';
      const next =
        shown === 'window'
          ? 'Окно сдачи файлов показано ученику: он бросит файлы и нажмёт «Сдать», окно само напишет в разговор. Закончите реплику и ждите.'
          : `Окна этот клиент не покажет: попросите ученика прикрепить файлы в блоке «Домашнее задание» на странице урока: ${String(sc.data.lesson_url)}`;
      const data = { ...sc.data, shown, next };
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(data) }],
        structuredContent: { ok: true, data },
      };
    }) as never,
  );
}

/** store_homework_file: called by the window only (visibility: app); the bytes go to the object store, not over the bus. */
export function registerStoreHomeworkFile(
  server: McpServer,
  deps: CallDeps,
  caller: Caller,
  files: HomeworkFiles,
): void {
  const tool = store_homework_file as ToolContract;
  registerAppTool(
    server,
    tool.name,
    {
      ...toolConfig(tool),
      _meta: { ui: { resourceUri: WINDOW_URI, visibility: ['app'] } },
    },
    (async (raw: unknown) => storeHomeworkFiles(deps, caller, files, raw)) as never,
  );
}

/**
 * One store_homework_file call (the window's and the lesson page's): the bytes go to the object
 * store, then the call takes the tool's path with what was staged.
 */
export async function storeHomeworkFiles(deps: CallDeps, caller: Caller, files: HomeworkFiles, raw: unknown) {
  const tool = store_homework_file as ToolContract;
  // A read token or malformed arguments are refused before any byte is stored.
  const args = (raw ?? {}) as Record<string, unknown>;
  if (caller.principal.scope !== 'write' || !checkArguments(tool.input, args).success) {
    return callTool(deps, tool, caller, args);
  }
  // Then the rate limit, and homework's check of the offer (access, count, sizes, types by
  // content, quota): a refused call stores nothing, so it leaves no orphan behind.
  const rate = await deps.limiter.check(caller.tokenKey);
  if (!rate.allowed) return rateLimitedResult(rate.retryAfter);
  try {
    const check = await deps.bus.request(checkHomeworkFiles, caller.principal, offerOf(args));
    if (!check.ok) return refusalResult(check.error);
  } catch (err) {
    deps.log.warn({ err, reqId: caller.requestId }, 'check_homework_files failed');
    return failureResult(err instanceof Failure ? err.status : 503);
  }
  let staged: StagedFile[];
  try {
    staged = await files.stage(args.files);
  } catch {
    // The object store is unreachable: a failure, like a service that does not answer.
    return failureResult(503);
  }
  return callTool(deps, tool, caller, { ...args, files: staged }, { rateCounted: true });
}
