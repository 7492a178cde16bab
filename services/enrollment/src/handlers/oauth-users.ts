import { ok, resolveUser, verifyPassword } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { verifyPassword as checkPassword, hashPassword } from '../domain/passwords.ts';
import { loginFailed, tokenInvalid } from '../refusals.ts';
import type { IdentityRepository } from '../repositories/identity.repository.ts';

/** Compared when the login is unknown, so a wrong login costs as long as a wrong password. */
const DUMMY = hashPassword('studium-dummy-password');

/** enrollment.verify_password: the sign-in page's check; every failure is the same refusal. */
export function verifyPasswordHandler(repo: IdentityRepository) {
  return endpoint(verifyPassword, async ({ login, password }) => {
    const user = await repo.findUserAccess(login.trim());
    const matches = await checkPassword(password, user?.password_hash ?? (await DUMMY));
    if (!user?.password_hash || !matches) return loginFailed();
    return ok({ user: user.user, full_name: user.full_name });
  });
}

/** enrollment.resolve_user: an OAuth token's user → principal, unless access was revoked since it was issued. */
export function resolveUserHandler(repo: IdentityRepository) {
  return endpoint(resolveUser, async ({ user, scope, issued_at }) => {
    const row = await repo.findUserAccess(user);
    const revokedAt = row?.access_revoked_at ? Date.parse(row.access_revoked_at) / 1000 : null;
    if (!row || (revokedAt !== null && issued_at <= Math.floor(revokedAt))) return tokenInvalid();
    return ok({
      principal: { user: row.user, full_name: row.full_name, roles: row.roles, scope, space: row.space },
      expires_at: null,
    });
  });
}
