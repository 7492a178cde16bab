import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';

/** argon2id with the OWASP minimum (19 MiB, 2 passes, 1 lane): about 30 ms on these machines. */
const PARAMS = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 };

function derive(password: string, nonce: Buffer, p: typeof PARAMS): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    argon2('argon2id', { message: password, nonce, ...p }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The PHC string of a new password: `$argon2id$v=19$m=…,t=…,p=…$salt$hash` (base64 without padding). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$${b64(salt)}$${b64(key)}`;
}

/** True when the password matches the stored PHC string; a malformed string never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (!m) return false;
  const expected = Buffer.from(m[5], 'base64');
  const key = await derive(password, Buffer.from(m[4], 'base64'), {
    memory: Number(m[1]),
    passes: Number(m[2]),
    parallelism: Number(m[3]),
    tagLength: expected.length,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A password the CLI accepts: 10 to 200 characters. */
export function passwordProblem(password: string): string | null {
  if (password.length < 10) return 'a password needs at least 10 characters';
  if (password.length > 200) return 'a password has at most 200 characters';
  return null;
}
