import { PERSONAL } from '../principal.ts';
import { chooseSpace, type SpaceOrg } from '../spaces.ts';

/** An organization of the user, as the space rules need it. */
export type OrgMembership = SpaceOrg;

/** What a space means for the course lists: whose catalog is visible and which enrollments count. */
export interface SpaceScope {
  /** `personal` or an organization name. */
  space: string;
  /** The organization of an organization space; null in the personal space. */
  organization: string | null;
  /** Organizations whose catalogs are visible; null = the whole published catalog (no organizations at all). */
  catalogOrgs: string[] | null;
  /** Spaces whose enrollments are the student's courses here (personal: every space of an active organization too). */
  courseSpaces: string[];
}

/**
 * Resolves the space of a list or enroll call. `explicit` is the `space` argument; without it the
 * principal's selected space (already effective) is used, and a selection that stopped being
 * available (the cached principal is older than the change) quietly falls back to personal.
 * An employee's personal space shows the catalogs of all their active organizations: the spec
 * gives the whole catalog only to people without organizations.
 */
export function resolveSpace(orgs: readonly OrgMembership[], selected: string, explicit?: string) {
  const chosen = chooseSpace(orgs, selected, explicit);
  if (!chosen.ok) return chosen;
  const scope: SpaceScope =
    chosen.organization === null
      ? {
          space: PERSONAL,
          organization: null,
          catalogOrgs: orgs.length === 0 ? null : chosen.active,
          courseSpaces: [PERSONAL, ...chosen.active],
        }
      : {
          space: chosen.space,
          organization: chosen.organization,
          catalogOrgs: [chosen.organization],
          courseSpaces: [chosen.organization],
        };
  return { ok: true as const, scope };
}
