import { chooseSpace, PERSONAL } from '@studium/contracts';

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
 * The space rule of spec 000 (`chooseSpace`, as enrollment applies it to the course lists) on the
 * read model: personal covers the personal space and every active organization; an organization
 * covers itself.
 */
export function resolveProgressSpace(orgs: readonly SpaceOrg[], selected: string, explicit?: string) {
  const chosen = chooseSpace(
    orgs.map((o) => ({ name: o.organization, title: o.title, suspended: o.suspended })),
    selected,
    explicit,
  );
  if (!chosen.ok) return chosen;
  const spaces = chosen.organization === null ? [PERSONAL, ...chosen.active] : [chosen.organization];
  return { ok: true as const, scope: { space: chosen.space, spaces } satisfies ProgressScope };
}

/** Share of lessons passed, 0..1, rounded to hundredths. */
export function share(passed: number, total: number): number {
  if (total <= 0) return 0;
  return Math.round(Math.min(1, passed / total) * 100) / 100;
}
