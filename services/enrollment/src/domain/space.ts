import { PERSONAL, refuse } from '@studium/contracts';

/** An organization of the user, as the space rules need it. */
export interface OrgMembership {
  name: string;
  title: string;
  suspended: boolean;
}

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
  const active = orgs.filter((o) => !o.suspended).map((o) => o.name);
  const personal: SpaceScope = {
    space: PERSONAL,
    organization: null,
    catalogOrgs: orgs.length === 0 ? null : active,
    courseSpaces: [PERSONAL, ...active],
  };
  const wanted = (explicit ?? selected).trim();
  if (wanted.toLowerCase() === PERSONAL) return { ok: true as const, scope: personal };
  const org = orgs.find((o) => o.name === wanted);
  if (!org || org.suspended) {
    if (explicit === undefined) return { ok: true as const, scope: personal };
    if (!org) {
      return refuse(
        'space_not_available',
        `Пространства «${wanted}» у ученика нет: выберите организацию из whoami или personal`,
        { space: wanted, available: [PERSONAL, ...active] },
      );
    }
    return refuse(
      'organization_suspended',
      `Организация «${org.title}» приостановлена: её курсы сейчас недоступны, зачисления сохраняются`,
      { space: wanted, organization: org.name },
    );
  }
  const scope: SpaceScope = {
    space: org.name,
    organization: org.name,
    catalogOrgs: [org.name],
    courseSpaces: [org.name],
  };
  return { ok: true as const, scope };
}
