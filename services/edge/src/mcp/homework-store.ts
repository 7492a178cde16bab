import { createHash, randomUUID } from 'node:crypto';
import { cleanFileName, LIMITS, STAGED_HEAD_BYTES, type StagedFile } from '@studium/contracts';
import { homeworkBucket, verifyFileTicket } from '@studium/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NatsConnection, ObjectStore } from 'nats';

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
      const { content } = f;
      const name = cleanFileName(f.name);
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

/**
 * A `{name, content}` entry the edge would store: base64 content and a name within the limit that
 * keeps something once cleaned (cleanFileName: no control or bidi characters).
 */
function wellFormed(f: unknown): f is { name: string; content: string } {
  const name = (f as { name?: unknown })?.name;
  const content = (f as { content?: unknown })?.content;
  return (
    typeof name === 'string' &&
    name.length <= NAME_LIMIT &&
    cleanFileName(name) !== '' &&
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
          name: cleanFileName(f.name),
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
