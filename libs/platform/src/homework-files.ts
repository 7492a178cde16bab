import { createHmac, timingSafeEqual } from 'node:crypto';
import { HOMEWORK_FILES_BUCKET } from '@studium/contracts';
import { StartupRefusal } from './trust.ts';

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

/** The signing key development uses when none is set (`STUDIUM_ENV=development`: npm start, tests). */
export const DEV_FILE_URL_SECRET = 'studium-dev-file-url-secret';
/** The placeholder shipped in k8s/config.yaml: a deployment that keeps it must not start. */
const PLACEHOLDER = /change[_-]?me/i;
/** Shortest key accepted outside development (32 characters: about 190 bits as base64). */
export const MIN_FILE_URL_SECRET = 32;

/**
 * The check a service runs at start-up on its FILE_URL_SECRET (the key of file download URLs;
 * anyone who knows it can forge a link to any file): outside development (`STUDIUM_ENV` other
 * than `development`) it must be set, at least {@link MIN_FILE_URL_SECRET} characters, not the
 * development key and not the manifests' placeholder. Throws with the reason; returns the key.
 */
export function checkFileUrlSecret(secret: string | undefined, env: string | undefined): string {
  if (env === 'development') return secret || DEV_FILE_URL_SECRET;
  const problem = !secret
    ? 'is not set'
    : secret === DEV_FILE_URL_SECRET
      ? 'is the development key'
      : PLACEHOLDER.test(secret)
        ? 'is the placeholder of the manifests'
        : secret.length < MIN_FILE_URL_SECRET || new Set(secret).size < 8
          ? `is weak (needs ${MIN_FILE_URL_SECRET}+ random characters)`
          : null;
  if (problem) {
    throw new StartupRefusal(
      `FILE_URL_SECRET ${problem}: set a long random key (the same for the edge and homework), or STUDIUM_ENV=development`,
    );
  }
  return secret as string;
}
