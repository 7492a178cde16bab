import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import {
  checkHomeworkFiles,
  LIMITS,
  STAGED_HEAD_BYTES,
  type StagedFile,
  store_homework_file,
  type ToolContract,
  upload_homework_file,
} from '@studium/contracts';
import { Failure, homeworkBucket, verifyFileTicket } from '@studium/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NatsConnection, ObjectStore } from 'nats';
import type { UiSupport } from './choose.ts';
import { failureResult, rateLimitedResult, refusalResult } from './render.ts';
import { toolSchemas } from './schemas.ts';
import { type CallDeps, type Caller, callTool } from './tools.ts';

const WINDOW_URI = 'ui://studium/upload-homework.html';
const WINDOW_HTML = readFileSync(new URL('./ui/upload-homework.html', import.meta.url), 'utf8');

/** The object store of homework files, opened once per edge. */
export class HomeworkFiles {
  private store: Promise<ObjectStore> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    readonly secret: string,
  ) {}

  bucket(): Promise<ObjectStore> {
    if (!this.store) {
      this.store = this.nc.jetstream().views.os(homeworkBucket(this.prefix));
      this.store.catch(() => {
        this.store = null;
      });
    }
    return this.store;
  }

  /**
   * Puts the bytes of every well-formed `{name, content}` entry into the object store and returns
   * what crosses the bus instead (see StagedFile); anything else crosses as `{invalid: true}` and
   * a non-list as one, so the service answers invalid_files or file_missing itself.
   */
  async stage(files: unknown): Promise<StagedFile[]> {
    if (!Array.isArray(files)) return files === undefined || files === null ? [] : [{ invalid: true }];
    const out: StagedFile[] = [];
    for (const f of files) {
      if (!wellFormed(f)) {
        out.push({ invalid: true });
        continue;
      }
      const { name, content } = f;
      const bytes = Buffer.from(content, 'base64');
      const object = randomUUID();
      if (bytes.length > 0) {
        await (await this.bucket()).putBlob({ name: object, description: name.slice(0, 200) }, bytes);
      }
      out.push({
        name,
        object,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        head: bytes.subarray(0, STAGED_HEAD_BYTES).toString('base64'),
      });
    }
    return out;
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A `{name, content}` entry the edge would store: a non-empty name within the limit and base64 content. */
function wellFormed(f: unknown): f is { name: string; content: string } {
  const name = (f as { name?: unknown })?.name;
  const content = (f as { content?: unknown })?.content;
  return (
    typeof name === 'string' &&
    !!name.trim() &&
    name.length <= NAME_LIMIT &&
    typeof content === 'string' &&
    BASE64.test(content)
  );
}

/** Bytes a base64 text decodes to, without decoding it. */
function decodedSize(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - pad;
}

/**
 * What homework checks before anything is stored: the number of entries, and the name, size and
 * first bytes of at most one more than an answer may hold (the rest cannot change the answer); the
 * length of a text handed in with them.
 */
export function offerOf(args: Record<string, unknown>) {
  const list = args.files;
  const entries = Array.isArray(list) ? list : list === undefined || list === null ? [] : [list];
  const invalid = !Array.isArray(list) && entries.length > 0;
  const files = entries.slice(0, LIMITS.homeworkFiles + 1).map((f) =>
    invalid || !wellFormed(f)
      ? { invalid: true as const }
      : {
          name: f.name,
          size: decodedSize(f.content),
          // Whole base64 quads only, so the head decodes to exactly its bytes.
          head: Buffer.from(f.content.slice(0, Math.ceil(STAGED_HEAD_BYTES / 3) * 4), 'base64')
            .subarray(0, STAGED_HEAD_BYTES)
            .toString('base64'),
        },
  );
  return {
    lesson: String(args.lesson),
    ...(typeof args.space === 'string' ? { space: args.space } : {}),
    ...(typeof args.answer === 'string' ? { answer_length: args.answer.trim().length } : {}),
    offered: entries.length,
    files,
  };
}
/** Longest file name kept (a longer one is not a well-formed entry: invalid_files). */
const NAME_LIMIT = 255;

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
      contents: [{ uri: WINDOW_URI, mimeType: RESOURCE_MIME_TYPE, text: WINDOW_HTML }],
    }),
  );
  registerAppTool(
    server,
    upload_homework_file.name,
    {
      title: upload_homework_file.title,
      description: upload_homework_file.description,
      inputSchema: toolSchemas(upload_homework_file as ToolContract).input,
      outputSchema: toolSchemas(upload_homework_file as ToolContract).output,
      annotations: { title: upload_homework_file.title, ...upload_homework_file.annotations },
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
      title: tool.title,
      description: tool.description,
      inputSchema: toolSchemas(tool).input,
      outputSchema: toolSchemas(tool).output,
      annotations: { title: tool.title, ...tool.annotations },
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
  if (caller.principal.scope !== 'write' || !tool.input.safeParse(args).success) {
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

/**
 * GET /files/:object — a signed, expiring download URL issued by the homework service to a viewer
 * it authorized (the owner, the course's curators); the bytes come from the object store.
 */
export function fileDownload(files: HomeworkFiles) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const { object } = req.params as { object: string };
    const ticket = verifyFileTicket(files.secret, object, req.query as Record<string, unknown>);
    if (!ticket) return reply.code(403).send({ error: 'нет доступа к этим данным' });
    const result = await (await files.bucket()).get(ticket.object);
    if (!result) return reply.code(404).send({ error: 'запрошенного объекта не существует' });
    // Files are at most 10 MB: read whole, so a broken read is a 503 and never a truncated file.
    const chunks: Uint8Array[] = [];
    const reader = result.data.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    if (await result.error)
      return reply.code(503).send({ error: 'учебный сервис сейчас недоступен, попробуйте позже' });
    // Always a download, never a page of the platform's origin: a safe type, no sniffing, no scripts.
    reply.header('content-type', safeType(ticket.type));
    reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(ticket.name)}`);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('content-security-policy', "default-src 'none'; sandbox");
    reply.header('cache-control', 'private, no-store');
    return reply.send(Buffer.concat(chunks));
  };
}

/** Types homework records (by content); text as UTF-8 plain text, anything else as bytes. */
const SERVED_TYPES = new Set([
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
]);

/** The Content-Type a download is served with: never HTML, SVG or anything a browser would run. */
export function safeType(type: string): string {
  if (type === 'text/plain' || type === 'text/csv') return `${type}; charset=utf-8`;
  return SERVED_TYPES.has(type) ? type : 'application/octet-stream';
}
