import { PERSONAL } from './principal.ts';
import { refuse } from './refusal.ts';

/** An organization of the student, as the space rule needs it. */
export interface SpaceOrg {
  name: string;
  title: string;
  suspended: boolean;
}

/**
 * The space rule of spec 000 («Пространства») that every context applies alike: `explicit` is
 * the tool's `space` argument; without it the selected space is used, and a selection that stopped
 * being available (membership removed, organization suspended) quietly falls back to personal. An
 * explicit space the student does not have is space_not_available (with `available`), an explicit
 * suspended one organization_suspended. `active` — the student's organizations not suspended.
 */
export function chooseSpace(orgs: readonly SpaceOrg[], selected: string, explicit?: string) {
  const active = orgs.filter((o) => !o.suspended).map((o) => o.name);
  const personal = { ok: true as const, space: PERSONAL, organization: null as string | null, active };
  const wanted = (explicit ?? selected).trim();
  if (wanted.toLowerCase() === PERSONAL) return personal;
  const org = orgs.find((o) => o.name === wanted);
  if (!org || org.suspended) {
    if (explicit === undefined) return personal;
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
  return { ok: true as const, space: org.name, organization: org.name as string | null, active };
}
