import { z } from 'zod';

/** Platform roles that open the curator set at /authoring. */
export const AUTHOR_ROLES = ['Course Creator', 'Moderator', 'System Manager', 'Administrator'] as const;

/** Every platform role a user can hold. */
export const PlatformRole = z.enum([...AUTHOR_ROLES, 'Student', 'Teacher', 'Manager']);
export type PlatformRole = z.infer<typeof PlatformRole>;

/** Token scope: a read token calls only read-only tools. */
export const TokenScope = z.enum(['read', 'write']);
export type TokenScope = z.infer<typeof TokenScope>;

/** The caller, resolved by the edge from the bearer token and sent with every request. */
export const Principal = z.object({
  user: z.string(),
  full_name: z.string(),
  roles: z.array(z.string()),
  scope: TokenScope,
  /** The selected space: "personal" or an organization name (stored per user by enrollment). */
  space: z.string(),
});
export type Principal = z.infer<typeof Principal>;

/** True when the roles include one that opens /authoring. */
export function isAuthor(roles: readonly string[]): boolean {
  return roles.some((r) => (AUTHOR_ROLES as readonly string[]).includes(r));
}

/** The name of the personal space. */
export const PERSONAL = 'personal';
