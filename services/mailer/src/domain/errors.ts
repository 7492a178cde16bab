/**
 * True when retrying cannot help: the SMTP server answered 5xx (mailbox unknown, relay denied,
 * message rejected), or the envelope failed before any reply (no valid recipient). 4xx replies
 * and connection failures are temporary and retried with backoff.
 */
export function isPermanentMailError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { responseCode?: unknown; code?: unknown };
  if (typeof e.responseCode === 'number') return e.responseCode >= 500 && e.responseCode < 600;
  return e.code === 'EENVELOPE';
}

/** A plausible single e-mail address: one `@`, non-empty parts, no spaces or header punctuation. */
export function isValidAddress(address: string): boolean {
  return /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/.test(address);
}
