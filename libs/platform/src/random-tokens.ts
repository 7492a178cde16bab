import { randomFillSync } from 'node:crypto';
import { nuid } from 'nats';

/**
 * Characters of a token: 64 of those NATS allows in a subject token, so each carries 6 bits of a
 * random byte with no bias.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_';
/** 22 characters: 132 random bits, as long as a NUID. */
const LENGTH = 22;
/** Random bytes drawn at once: one system call for 256 tokens. */
const pool = Buffer.alloc(LENGTH * 256);
let used = pool.length;

/** A subject token no one can guess from the ones seen before: 132 bits from the system's CSPRNG. */
export function unpredictableToken(): string {
  if (used + LENGTH > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let token = '';
  for (let i = 0; i < LENGTH; i++) token += ALPHABET[(pool[used + i] as number) & 63];
  used += LENGTH;
  return token;
}

/**
 * nats.js names every inbox and every request's reply subject with its NUID: a crypto-random
 * prefix, then a sequence that grows by a fixed, per-process increment. Whoever sees a few reply
 * subjects of a process (any service it asks) can compute the next ones, and publish a forged
 * reply there before the real one arrives (the permissions stop most of that, but a process that
 * may publish into another's inbox for a purpose could do it). From here on each one is drawn
 * afresh: `nuid` is the instance the client's request and inbox code calls. Installed once when
 * the platform library loads, before any connection exists; a test checks the reply subjects a
 * service receives (`libs/platform/test/unpredictable-inboxes.test.ts`).
 */
nuid.next = unpredictableToken;

/**
 * Subjects of a streamed answer (the teachers' chat, a tutor turn), each used once: the edge
 * subscribes to its frames subject (`edge.frames.<token>`) and names it in the start request;
 * ai-chat subscribes to the answer's control subject (`ai-chat.control.<token>`) and returns it.
 * They are not inboxes: the NATS users let ai-chat publish frames only under `edge.frames.>` and
 * the edge controls only under `ai-chat.>` (scripts/nats-auth.ts), so no process may publish into
 * another's `_INBOX_<user>.>`, where the replies to its requests arrive.
 */
export const FRAMES_SUBJECT = 'edge.frames';
export const CONTROL_SUBJECT = 'ai-chat.control';

/** Whether `subject` is a once-used subject under `base` and the bus prefix, as {@link onceSubject} makes them. */
export function isOnceSubject(
  prefix: string,
  base: typeof FRAMES_SUBJECT | typeof CONTROL_SUBJECT,
  subject: string,
): boolean {
  const head = `${prefix ? `${prefix}.` : ''}${base}.`;
  return subject.startsWith(head) && /^[0-9A-Za-z_-]{22}$/.test(subject.slice(head.length));
}

/** A new once-used subject under `base` (one of the two above) and the bus prefix. */
export function onceSubject(prefix: string, base: typeof FRAMES_SUBJECT | typeof CONTROL_SUBJECT): string {
  return `${prefix ? `${prefix}.` : ''}${base}.${unpredictableToken()}`;
}
