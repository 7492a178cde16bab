import { CHAT_MESSAGE_MAX, CHAT_TITLE_MAX } from '@studium/contracts';

/** Length in characters (code points), as a person counts them; JavaScript's length counts UTF-16 units. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Why a message is refused (spec: empty, or longer than 8000 characters), or null when it is fine. */
export function messageProblem(message: string): { reason: 'empty' | 'too_long'; length: number } | null {
  const length = charCount(message);
  if (message.trim() === '') return { reason: 'empty', length };
  if (length > CHAT_MESSAGE_MAX) return { reason: 'too_long', length };
  return null;
}

/**
 * A thread's title: the start of its first message, whitespace collapsed, up to 80 characters.
 * A longer message is cut at a word boundary when one is near, and ends with an ellipsis.
 */
export function threadTitle(message: string): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  if (chars.length <= CHAT_TITLE_MAX) return flat;
  const head = chars.slice(0, CHAT_TITLE_MAX - 1).join('');
  const space = head.lastIndexOf(' ');
  const cut = space >= CHAT_TITLE_MAX / 2 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a uuid in its usual text form (anything else names no thread). */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}
