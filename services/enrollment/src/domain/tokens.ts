import { createHash, randomBytes } from 'node:crypto';

/** Prefix that makes a Studium token recognizable in logs and secret scanners. */
export const TOKEN_PREFIX = 'stu_';

/** A new opaque token: the secret (shown once) and its stored hash. */
export function newToken(): { secret: string; hash: string; id: string } {
  const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashToken(secret), id: `tok_${randomBytes(8).toString('hex')}` };
}

/** The stored form of a token. */
export function hashToken(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
