import { createHmac, timingSafeEqual } from 'node:crypto';
import { HOMEWORK_FILES_BUCKET } from '@studium/contracts';

/**
 * Homework files live in one JetStream object store bucket per deployment (or test prefix). The
 * edge writes the bytes of store_homework_file there (NATS messages stop at 1 MB) and streams
 * downloads from it; the homework service owns the records and decides what is kept.
 */
export function homeworkBucket(prefix: string): string {
  return (prefix ? `${prefix}_${HOMEWORK_FILES_BUCKET}` : HOMEWORK_FILES_BUCKET).replace(/[^A-Za-z0-9_-]/g, '_');
}

/** What a download URL names: the stored object, and the name and type it is served with. */
export interface FileTicket {
  object: string;
  name: string;
  type: string;
  /** Unix seconds after which the URL no longer opens the file. */
  exp: number;
}

function signature(secret: string, t: FileTicket): string {
  return createHmac('sha256', secret).update(`${t.object}\n${t.name}\n${t.type}\n${t.exp}`).digest('base64url');
}

/** The path and query of a signed, expiring download URL (served by the edge at GET /files/:object). */
export function signedFilePath(secret: string, t: FileTicket): string {
  const q = new URLSearchParams({ name: t.name, type: t.type, exp: String(t.exp), sig: signature(secret, t) });
  return `/files/${encodeURIComponent(t.object)}?${q}`;
}

/** Checks a download URL's signature and expiry; the ticket when it opens the file, null otherwise. */
export function verifyFileTicket(
  secret: string,
  object: string,
  query: Record<string, unknown>,
  now = Date.now(),
): FileTicket | null {
  const { name, type, exp, sig } = query;
  if (typeof name !== 'string' || typeof type !== 'string' || typeof exp !== 'string' || typeof sig !== 'string') {
    return null;
  }
  const ticket = { object, name, type, exp: Number(exp) };
  if (!Number.isInteger(ticket.exp) || ticket.exp * 1000 < now) return null;
  const expected = Buffer.from(signature(secret, ticket));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given) ? ticket : null;
}
