import {
  type AssignmentChanged,
  type Enrolled,
  type MembershipChanged,
  type OrganizationChanged,
  PlatformRole,
  PRINCIPAL_CHANGED,
} from '@studium/contracts';
import { emitEvent } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import { announceAccess, usersOfProgram } from './access-events.ts';
import type { EnrollmentDb } from './db.ts';
import { parseIsoDate } from './domain/iso-date.ts';
import { hashPassword, passwordProblem } from './domain/passwords.ts';
import { newToken } from './domain/tokens.ts';
import { AccessRepository } from './repositories/access.repository.ts';
import { CatalogRepository } from './repositories/catalog.repository.ts';
import { type EnrollmentListRow, EnrollmentRepository } from './repositories/enrollment.repository.ts';
import { IdentityRepository } from './repositories/identity.repository.ts';
import { type ProgramDefinition, ProgramRepository } from './repositories/program.repository.ts';

/**
 * Administrative operations of the enrollment context (the admin CLI and the demo seed use them).
 * They write the enrollment schema directly, as the service itself would, and announce principal
 * changes on NATS when a connection is given so edges drop cached principals at once.
 */
export class EnrollmentAdmin {
  private readonly repo: IdentityRepository;
  private readonly access: AccessRepository;
  private readonly enrollments: EnrollmentRepository;
  private readonly programs: ProgramRepository;
  private readonly catalog: CatalogRepository;

  constructor(
    private readonly db: Kysely<EnrollmentDb>,
    private readonly notify?: { nc: NatsConnection; prefix: string },
  ) {
    this.repo = new IdentityRepository(db);
    this.access = new AccessRepository(db);
    this.enrollments = new EnrollmentRepository(db);
    this.programs = new ProgramRepository(db);
    this.catalog = new CatalogRepository(db);
  }

  private changed(user: string): void {
    if (!this.notify) return;
    const subject = this.notify.prefix ? `${this.notify.prefix}.${PRINCIPAL_CHANGED}` : PRINCIPAL_CHANGED;
    this.notify.nc.publish(subject, JSON.stringify({ user }));
  }

  /** Creates or updates a user with platform roles. */
  async upsertUser(id: string, fullName: string, roles: string[]): Promise<void> {
    if (!id.trim()) throw new Error('a login is required');
    const unknown = roles.filter((r) => !PlatformRole.safeParse(r).success);
    if (unknown.length) {
      throw new Error(`no such role: ${unknown.join(', ')} (roles: ${PlatformRole.options.join(', ')})`);
    }
    await this.db.transaction().execute(async (trx) => {
      const created = await new IdentityRepository(trx).upsertUser({ id, full_name: fullName, roles });
      const at = new Date().toISOString();
      await emitEvent(trx, created ? 'enrollment.user_created' : 'enrollment.user_updated', {
        user: id,
        full_name: fullName,
        at,
      });
      if (created) await announceAccess(trx, [id]);
    });
    this.changed(id);
  }

  /** Creates or updates an organization. */
  async upsertOrganization(name: string, title: string, suspended?: boolean): Promise<void> {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name) || name === 'personal') {
      throw new Error(`organization name must be lowercase letters, digits, - or _, and not "personal": ${name}`);
    }
    await this.db.transaction().execute(async (trx) => {
      const repo = new IdentityRepository(trx);
      await repo.upsertOrganization({ name, title, suspended });
      await this.organizationChanged(trx, name);
      // Title and suspension are in every member's access document.
      await announceAccess(trx, await repo.membersOf(name));
    });
    for (const user of await this.repo.membersOf(name)) this.changed(user);
  }

  /** Suspends or reinstates an organization (enrollments stay; access follows the flag). */
  async setSuspended(org: string, suspended: boolean): Promise<void> {
    await this.requireOrg(org);
    const members = await this.db.transaction().execute(async (trx) => {
      const users = await new IdentityRepository(trx).setSuspended(org, suspended);
      await this.organizationChanged(trx, org);
      await announceAccess(trx, users);
      return users;
    });
    for (const user of members) this.changed(user);
  }

  /** Announces an organization's current title and suspension (reporting's read model). */
  private async organizationChanged(trx: Kysely<EnrollmentDb>, org: string): Promise<void> {
    const row = await new IdentityRepository(trx).findOrganization(org);
    if (!row) return;
    const event: OrganizationChanged = {
      organization: row.name,
      title: row.title,
      suspended: row.suspended,
      at: new Date().toISOString(),
    };
    await emitEvent(trx, 'enrollment.organization_changed', event);
  }

  /** Announces a membership's role, or null when the user left (reporting's read model). */
  private async membershipChanged(
    trx: Kysely<EnrollmentDb>,
    org: string,
    user: string,
    role: MembershipChanged['role'],
  ) {
    const event: MembershipChanged = { organization: org, user, role, at: new Date().toISOString() };
    await emitEvent(trx, 'enrollment.membership_changed', event);
  }

  /** Adds a user to an organization as manager or member. */
  async addMember(org: string, user: string, role: 'manager' | 'member'): Promise<void> {
    await this.requireOrg(org);
    await this.requireUser(user);
    await this.db.transaction().execute(async (trx) => {
      await new IdentityRepository(trx).upsertMembership({ org, user_id: user, role });
      await this.membershipChanged(trx, org, user, role);
      await announceAccess(trx, [user]);
    });
    this.changed(user);
  }

  async removeMember(org: string, user: string): Promise<void> {
    await this.requireOrg(org);
    await this.requireUser(user);
    if (!(await this.repo.findMembership(user, org))) throw new Error(`${user} is not a member of ${org}`);
    await this.db.transaction().execute(async (trx) => {
      await new IdentityRepository(trx).removeMembership(user, org);
      await this.membershipChanged(trx, org, user, null);
      await announceAccess(trx, [user]);
    });
    this.changed(user);
  }

  /** Issues a token; the secret is returned once and only its hash is stored. */
  async issueToken(
    user: string,
    opts: { scope?: 'read' | 'write'; label?: string; expiresAt?: string | null } = {},
  ): Promise<{ id: string; token: string }> {
    await this.requireUser(user);
    const t = newToken();
    await this.repo.insertToken({
      id: t.id,
      user_id: user,
      token_hash: t.hash,
      label: opts.label ?? '',
      scope: opts.scope ?? 'write',
      expires_at: opts.expiresAt ?? null,
    });
    return { id: t.id, token: t.secret };
  }

  /** Revokes a token; edges drop the user's cached principal immediately. */
  async revokeToken(id: string): Promise<boolean> {
    const user = await this.repo.revokeToken(id);
    if (user) this.changed(user);
    return !!user;
  }

  /** Sets a user's sign-in password (argon2id hash; the password itself is never stored). */
  async setPassword(user: string, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new Error(problem);
    await this.requireUser(user);
    await this.repo.setPasswordHash(user, await hashPassword(password));
  }

  /**
   * Ends all of a user's access at once: every API token revoked, and OAuth tokens issued before
   * now refused (the edge also deletes their grants; see the CLI). Returns the API tokens revoked.
   */
  async revokeAllAccess(user: string): Promise<number> {
    await this.requireUser(user);
    const n = await this.repo.revokeAllAccess(user);
    this.changed(user);
    return n;
  }

  async listTokens(user?: string) {
    if (user !== undefined) await this.requireUser(user);
    return this.repo.listTokens(user);
  }

  /** Opens a course to an organization: its members see it in their catalog and may enroll. */
  async allowCourse(org: string, course: string): Promise<void> {
    await this.requireOrg(org);
    await this.access.allow(org, course);
  }

  /** Closes a course to an organization (existing enrollments stay). */
  async disallowCourse(org: string, course: string): Promise<void> {
    await this.requireOrg(org);
    await this.access.disallow(org, course);
  }

  /** The courses an organization has opened. */
  coursesOf(org: string): Promise<string[]> {
    return this.access.coursesOf(org);
  }

  /**
   * Assigns a course to a member in the organization's space (mandatory flag, optional ISO
   * deadline). A self-enrollment in that space becomes the assignment; a new enrollment emits
   * `enrollment.enrolled` through the outbox. Returns whether the enrollment was created.
   */
  async assignCourse(
    org: string,
    user: string,
    course: string,
    opts: { mandatory?: boolean; deadline?: string | null } = {},
  ): Promise<{ created: boolean }> {
    await this.requireOrg(org);
    await this.requireUser(user);
    const membership = await this.repo.findMembership(user, org);
    if (!membership) throw new Error(`${user} is not a member of ${org}`);
    const deadline = opts.deadline ? parseIsoDate(opts.deadline, '--deadline') : null;
    return this.db.transaction().execute(async (trx) => {
      const row = await this.enrollments.assign(trx, {
        user_id: user,
        course,
        org,
        mandatory: opts.mandatory ?? false,
        deadline,
      });
      if (row.created) {
        const event: Enrolled = {
          user,
          course,
          space: org,
          organization: org,
          self_enrolled: false,
          at: row.enrolled_at,
        };
        await emitEvent(trx, 'enrollment.enrolled', event);
      }
      const assignment: AssignmentChanged = {
        user,
        course,
        space: org,
        organization: org,
        mandatory: opts.mandatory ?? false,
        deadline,
        at: new Date().toISOString(),
      };
      await emitEvent(trx, 'enrollment.assignment_changed', assignment);
      await announceAccess(trx, [user]);
      return { created: row.created };
    });
  }

  /**
   * Announces the current state of every user, organization, membership and enrollment as events
   * (one transaction through the outbox), so read models built before these events existed
   * (reporting) catch up. Every one is state transfer: announcing twice changes nothing.
   */
  async announceState(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const at = new Date().toISOString();
      let n = 0;
      const users = await trx.selectFrom('users').select(['id', 'full_name']).execute();
      for (const u of users)
        n += Number(!!(await emitEvent(trx, 'enrollment.user_updated', { user: u.id, full_name: u.full_name, at })));
      const orgs = await trx.selectFrom('organizations').select('name').execute();
      for (const o of orgs) {
        await this.organizationChanged(trx, o.name);
        n++;
      }
      const members = await trx.selectFrom('memberships').select(['org', 'user_id', 'role']).execute();
      for (const m of members) {
        await this.membershipChanged(trx, m.org, m.user_id, m.role);
        n++;
      }
      for (const e of await new EnrollmentRepository(trx).list()) {
        const enrolled: Enrolled = {
          user: e.user_id,
          course: e.course,
          space: e.space,
          organization: e.organization,
          self_enrolled: e.self_enrolled,
          at: e.enrolled_at,
        };
        await emitEvent(trx, 'enrollment.enrolled', enrolled);
        n++;
        if (e.self_enrolled || !e.organization) continue;
        const assignment: AssignmentChanged = {
          user: e.user_id,
          course: e.course,
          space: e.space,
          organization: e.organization,
          mandatory: e.mandatory ?? false,
          deadline: e.deadline,
          at,
        };
        await emitEvent(trx, 'enrollment.assignment_changed', assignment);
        n++;
      }
      n += await announceAccess(
        trx,
        users.map((u) => u.id),
      );
      return n;
    });
  }

  /** Enrollments, optionally filtered by user, organization or course. */
  listEnrollments(filter: { user?: string; org?: string; course?: string } = {}): Promise<EnrollmentListRow[]> {
    return this.enrollments.list(filter);
  }

  /**
   * Records a student's progress in a course (every space's enrollment). Until the lessons
   * service reports completion itself, this is how a course becomes completed (program order).
   */
  async recordProgress(user: string, course: string, lessonsDone: number, completedAt: string | null): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const n = await new EnrollmentRepository(trx).recordProgress(user, course, lessonsDone, completedAt);
      if (n > 0) await announceAccess(trx, [user]);
      return n;
    });
  }

  /** Creates or replaces a program: key, title, whether its courses go in order, the ordered course ids. */
  async saveProgram(key: string, title: string, ordered: boolean, courses: string[]): Promise<void> {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(key)) {
      throw new Error(`program key must be lowercase letters, digits, - or _: ${key}`);
    }
    if (new Set(courses).size !== courses.length) throw new Error(`a course appears twice in program ${key}`);
    await this.db.transaction().execute(async (trx) => {
      // The users who saw the program before the change and those who see it after.
      const before = await usersOfProgram(trx, key, courses);
      await new ProgramRepository(trx).saveProgram({ key, title, ordered, courses });
      await announceAccess(trx, before);
    });
  }

  /** Adds a user to a program (ordered programs then lock their later courses for them). */
  async addProgramMember(program: string, user: string): Promise<void> {
    if (!(await this.programs.exists(program))) throw new Error(`no such program: ${program}`);
    await this.requireUser(user);
    await this.db.transaction().execute(async (trx) => {
      await new ProgramRepository(trx).addMember(program, user);
      await announceAccess(trx, [user]);
    });
  }

  /** Removes a user from a program. */
  async removeProgramMember(program: string, user: string): Promise<void> {
    if (!(await this.programs.exists(program))) throw new Error(`no such program: ${program}`);
    await this.requireUser(user);
    await this.db.transaction().execute(async (trx) => {
      await new ProgramRepository(trx).removeMember(program, user);
      await announceAccess(trx, [user]);
    });
  }

  /** Every program with its courses and members. */
  listPrograms(): Promise<ProgramDefinition[]> {
    return this.programs.list();
  }

  /**
   * Throws unless enrollment's catalog (built from the courses' card events) knows the course;
   * with `published`, unless it is open to students. The CLI checks every course id it is given,
   * so a typo is refused instead of showing a made-up course to students.
   */
  async requireCourse(course: string, opts: { published?: boolean; allowedIn?: string } = {}): Promise<void> {
    const card = await this.catalog.findCard(course);
    if (!card) {
      // A course the catalog lost (never arrived) may still be closed to the organization that had it.
      if (opts.allowedIn && (await this.access.isAllowed(course, [opts.allowedIn]))) return;
      throw new Error(`no such course: ${course} (not in the catalog; take the id from list_courses)`);
    }
    if (opts.published && card.status !== 'published') {
      throw new Error(`course ${course} is not open to students (${card.status}): publish it first`);
    }
  }

  private async requireOrg(org: string): Promise<void> {
    if (!(await this.repo.findOrganization(org))) throw new Error(`no such organization: ${org}`);
  }

  private async requireUser(user: string): Promise<void> {
    if (!(await this.repo.userExists(user))) throw new Error(`no such user: ${user}`);
  }
}
