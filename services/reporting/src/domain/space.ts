import { PERSONAL, refuse } from '@studium/contracts';

/** An organization of the student as the read model knows it. */
export interface SpaceOrg {
  organization: string;
  title: string;
  suspended: boolean;
}

/** The spaces whose enrollments and sessions a get_my_progress reply covers. */
export interface ProgressScope {
  space: string;
  spaces: string[];
}

/**
 * The space rules of the course lists (enrollment's resolveSpace), on the read model: personal
 * covers the personal space and every active organization; an organization covers itself. An
 * explicit space the student does not have is space_not_available, a suspended one
 * organization_suspended; a selected space that stopped being available falls back to personal.
 */
export function resolveProgressSpace(orgs: readonly SpaceOrg[], selected: string, explicit?: string) {
  const active = orgs.filter((o) => !o.suspended).map((o) => o.organization);
  const personal: ProgressScope = { space: PERSONAL, spaces: [PERSONAL, ...active] };
  const wanted = (explicit ?? selected).trim();
  if (wanted.toLowerCase() === PERSONAL) return { ok: true as const, scope: personal };
  const org = orgs.find((o) => o.organization === wanted);
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
      { space: wanted, organization: org.organization },
    );
  }
  return { ok: true as const, scope: { space: org.organization, spaces: [org.organization] } };
}

/** Share of lessons passed, 0..1, rounded to hundredths. */
export function share(passed: number, total: number): number {
  if (total <= 0) return 0;
  return Math.round(Math.min(1, passed / total) * 100) / 100;
}
