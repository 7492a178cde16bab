import { cleanFileName, LIMITS } from '@studium/contracts';
import { answerTooLarge, fileMissing, fileTooLarge, fileRejected as rejected, tooManyFiles } from '../refusals.ts';

/** A file type the platform accepts: its name, MIME type, the extensions it may carry and its content check. */
interface AcceptedType {
  type: string;
  mime: string;
  extensions: string[];
  matches(head: Uint8Array): boolean;
}

const startsWith = (head: Uint8Array, bytes: number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ZIP = [0x50, 0x4b, 0x03, 0x04];

/**
 * Markup a browser would run or render (HTML, SVG, XML): not plain text, whatever the name says —
 * HTML saved as .txt or SVG as .md is file_rejected.
 */
const MARKUP = /<\s*(!doctype|html|head|body|script|svg|iframe|object|embed|meta|style|\?xml)\b/i;

/** Plain text: valid UTF-8 without NUL or other control bytes (tab, CR, LF allowed), and not markup. */
function isText(head: Uint8Array): boolean {
  for (const b of head) if (b === 0 || (b < 0x20 && b !== 9 && b !== 10 && b !== 13)) return false;
  if (MARKUP.test(Buffer.from(head).toString('latin1'))) return false;
  try {
    // A multi-byte character cut at the end of the head is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * What a homework answer may hold: documents, tables, slides, pictures and text. Checked by
 * content (magic bytes), not only by the name: a renamed program is file_rejected.
 */
export const ACCEPTED_TYPES: AcceptedType[] = [
  {
    type: 'pdf',
    mime: 'application/pdf',
    extensions: ['pdf'],
    matches: (h) => startsWith(h, [0x25, 0x50, 0x44, 0x46, 0x2d]),
  },
  {
    type: 'png',
    mime: 'image/png',
    extensions: ['png'],
    matches: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  { type: 'jpeg', mime: 'image/jpeg', extensions: ['jpg', 'jpeg'], matches: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { type: 'gif', mime: 'image/gif', extensions: ['gif'], matches: (h) => startsWith(h, [0x47, 0x49, 0x46, 0x38]) },
  {
    type: 'webp',
    mime: 'image/webp',
    extensions: ['webp'],
    matches: (h) => startsWith(h, [0x52, 0x49, 0x46, 0x46]) && startsWith(h, [0x57, 0x45, 0x42, 0x50], 8),
  },
  {
    type: 'docx',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extensions: ['docx'],
    matches: (h) => startsWith(h, ZIP),
  },
  {
    type: 'xlsx',
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extensions: ['xlsx'],
    matches: (h) => startsWith(h, ZIP),
  },
  {
    type: 'pptx',
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extensions: ['pptx'],
    matches: (h) => startsWith(h, ZIP),
  },
  {
    type: 'odt',
    mime: 'application/vnd.oasis.opendocument.text',
    extensions: ['odt'],
    matches: (h) => startsWith(h, ZIP),
  },
  { type: 'txt', mime: 'text/plain', extensions: ['txt', 'md'], matches: isText },
  { type: 'csv', mime: 'text/csv', extensions: ['csv'], matches: isText },
];

/** Extensions the platform accepts (the upload window's file picker shows the same list). */
export const ACCEPTED_EXTENSIONS = ACCEPTED_TYPES.flatMap((t) => t.extensions);

/** The extension of a file name, lower case; '' when there is none. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The accepted type of a file by name and first bytes; null when the platform does not take it. */
export function sniffType(name: string, head: Uint8Array): AcceptedType | null {
  const ext = extensionOf(name);
  return ACCEPTED_TYPES.find((t) => t.extensions.includes(ext) && t.matches(head)) ?? null;
}

/** A file offered for an answer: its name and size (bytes). */
export interface OfferedFile {
  name: string;
  size: number;
}

/**
 * The count and size limits of spec 000 (at most 10 files in the answer, 10 MB each, 30 MB of new
 * files at once), checked before any byte is kept. `existing` — files the answer already has.
 */
export function checkLimits(offered: OfferedFile[], existing: number) {
  if (offered.length === 0) return fileMissing('none');
  const empty = offered.find((f) => f.size === 0);
  if (empty) return fileMissing({ empty: empty.name });
  if (existing + offered.length > LIMITS.homeworkFiles) return tooManyFiles(existing, offered.length);
  const big = offered.find((f) => f.size > LIMITS.homeworkFileBytes);
  if (big) return fileTooLarge(big.name, big.size);
  const total = offered.reduce((n, f) => n + f.size, 0);
  if (total > LIMITS.homeworkBatchBytes) return answerTooLarge({ batchBytes: total });
  return null;
}

/** The per-student quota (LIMITS.homeworkQuotaBytes): the refusal when the new files would pass it. */
export function checkQuota(usedBytes: number, offered: OfferedFile[]) {
  const adding = offered.reduce((n, f) => n + f.size, 0);
  if (usedBytes + adding <= LIMITS.homeworkQuotaBytes) return null;
  return answerTooLarge({ quota: LIMITS.homeworkQuotaBytes, used: usedBytes, adding });
}

/** The type refusal: the platform does not take this file. */
export function fileRejected(name: string) {
  return rejected(name, ACCEPTED_EXTENSIONS);
}

/**
 * Files with their names as the platform keeps them (cleanFileName: no control or bidi characters,
 * NFC); null when a name keeps nothing, which makes the list invalid_files. Whatever sent them
 * (any edge, the operator), names are cleaned here, where they are stored.
 */
export function withCleanNames<T extends { name: string }>(files: T[]): T[] | null {
  const out = files.map((f) => ({ ...f, name: cleanFileName(f.name) }));
  return out.some((f) => f.name === '') ? null : out;
}
