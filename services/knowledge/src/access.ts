import { type Principal, whoami } from '@studium/contracts';
import { type Bus, type CallContext, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { KnowledgeDb } from './db.ts';
import { ProjectRepository, type ProjectRow } from './repositories/project.repository.ts';

/** A space the caller belongs to (an organization that is not suspended). */
export interface Membership {
  space: string;
  title: string;
  role: string;
}

/**
 * Who may see what in the knowledge base. Spaces are the caller's organizations (asked from
 * enrollment's whoami, reused for a few seconds); every space has a root project made on first
 * sight; a call naming a project is checked against the caller's spaces. Agent memory is private
 * to its owner.
 */
export class Access {
  private readonly cache = new Map<string, { at: number; spaces: Membership[] }>();

  constructor(
    private readonly bus: Bus,
    private readonly db: Kysely<KnowledgeDb>,
    private readonly ttlMs: number,
  ) {}

  /** The caller of a call; a write tool with a read-scoped token is a 403 (the edge hides those tools). */
  principal(ctx: CallContext, write = false): Principal {
    if (!ctx.principal) throw new Failure(401, 'no principal');
    if (write && ctx.principal.scope !== 'write') throw new Failure(403, 'read-scoped token');
    return ctx.principal;
  }

  async memberships(p: Principal): Promise<Membership[]> {
    const held = this.cache.get(p.user);
    if (held && Date.now() - held.at < this.ttlMs) return held.spaces;
    const reply = await this.bus.request(whoami, p, {});
    if (!reply.ok) throw new Failure(503, 'whoami refused');
    const spaces = reply.data.organizations
      .filter((o) => !o.suspended)
      .map((o) => ({ space: o.name, title: o.title, role: o.role }));
    await new ProjectRepository(this.db).ensureRoots(spaces.map((s) => ({ name: s.space, title: s.title })));
    this.cache.set(p.user, { at: Date.now(), spaces });
    return spaces;
  }

  /** The caller's projects, ordered by handle. */
  async projects(p: Principal): Promise<ProjectRow[]> {
    const spaces = await this.memberships(p);
    return new ProjectRepository(this.db).inSpaces(spaces.map((s) => s.space));
  }

  /** A project by handle when the caller may use it; undefined otherwise (projectNotFound either way). */
  async project(p: Principal, handle: string): Promise<ProjectRow | undefined> {
    const spaces = await this.memberships(p);
    const found = await new ProjectRepository(this.db).byHandle(handle);
    if (!found || !spaces.some((s) => s.space === found.space)) return undefined;
    return found;
  }

  /** Ids of the caller's projects. */
  async projectIds(p: Principal): Promise<string[]> {
    return (await this.projects(p)).map((x) => x.id);
  }
}
