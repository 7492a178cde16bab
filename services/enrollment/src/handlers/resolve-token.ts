import { ok, resolveToken } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { hashToken } from '../domain/tokens.ts';
import { tokenInvalid } from '../refusals.ts';
import type { IdentityRepository } from '../repositories/identity.repository.ts';

/** enrollment.resolve_token: bearer token → principal; unknown, revoked and expired tokens are one refusal. */
export function resolveTokenHandler(repo: IdentityRepository) {
  return endpoint(resolveToken, async ({ token }) => {
    const row = await repo.findToken(hashToken(token));
    if (!row || row.revoked_at || (row.expires_at && Date.parse(row.expires_at) <= Date.now())) return tokenInvalid();
    return ok({
      principal: { user: row.user, full_name: row.full_name, roles: row.roles, scope: row.scope, space: row.space },
      expires_at: row.expires_at,
    });
  });
}
