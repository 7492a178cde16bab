import { z } from 'zod';
import { Principal } from '../principal.ts';
import { defineOperation } from '../tool.ts';

/** Resolves a bearer token to its principal (edge → enrollment); refusal `token_invalid` when unknown, expired or revoked. */
export const resolveToken = defineOperation({
  subject: 'enrollment.resolve_token',
  input: z.object({ token: z.string() }),
  output: z.object({
    principal: Principal,
    /** When the token stops working; null = never. */
    expires_at: z.string().nullable(),
  }),
});

/**
 * Core NATS subject (not request/reply) on which enrollment announces that a user's principal
 * changed (space selected, token revoked, roles changed): edges drop their cached principals.
 */
export const PRINCIPAL_CHANGED = 'enrollment.principal_changed';

/** Payload of {@link PRINCIPAL_CHANGED}. */
export const PrincipalChanged = z.object({ user: z.string() });
export type PrincipalChanged = z.infer<typeof PrincipalChanged>;
