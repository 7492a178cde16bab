import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyPassword } from '../src/domain/passwords.ts';

describe('passwords', () => {
  it('are stored as argon2id PHC strings with a fresh salt, and only the right one matches', async () => {
    const a = await hashPassword('правильный пароль');
    const b = await hashPassword('правильный пароль');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('правильный пароль', a)).toBe(true);
    expect(await verifyPassword('неправильный пароль', a)).toBe(false);
    expect(await verifyPassword('правильный пароль', 'not a hash')).toBe(false);
  });

  it('must be 10 to 200 characters', () => {
    expect(passwordProblem('short')).toMatch(/at least 10/);
    expect(passwordProblem('x'.repeat(201))).toMatch(/at most 200/);
    expect(passwordProblem('long enough')).toBeNull();
  });
});
