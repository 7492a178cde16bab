import { get_my_projects, kb_whoami, ok, PROFILE_KEYS, start_session } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { sql } from 'kysely';
import { noteView, orderByKeys } from '../../domain/student-notes.ts';
import type { Kb } from '../../kb.ts';
import { projectNotFound } from '../../refusals.ts';
import { ActivityRepository } from '../../repositories/activity.repository.ts';
import type { ProjectRow } from '../../repositories/project.repository.ts';
import { StudentNoteRepository } from '../../repositories/student-note.repository.ts';
import { activityView } from './views.ts';

/** Changes the delta of start_session holds at most (the newest first). */
export const DELTA_LIMIT = 50;
/** Memory notes (categories) about the user the profile carries at most. */
const PROFILE_MEMORY_LIMIT = 50;

function projectView(p: ProjectRow) {
  return { handle: p.handle, title: p.title, space: p.space };
}

/** start_session: profile, projects, and for a project its index, the delta since the last visit and knownValues. */
export function startSessionHandler(kb: Kb) {
  return endpoint(start_session, async (args, ctx) => {
    const p = kb.access.principal(ctx);
    const projects = await kb.access.projects(p);
    const facts = orderByKeys(await new StudentNoteRepository(kb.db).facts(p.user), PROFILE_KEYS);
    const keys = Object.fromEntries(
      facts.filter((f) => (PROFILE_KEYS as readonly string[]).includes(f.key)).map((f) => [f.key, f.text]),
    );
    const scopeIds = projects.map((x) => x.id);
    let project: ProjectRow | undefined;
    if (args.project !== undefined) {
      project = await kb.access.project(p, args.project);
      if (!project) return projectNotFound(args.project);
    }
    const known = await sql<{ kind: string; value: string }>`
      select distinct 'tag' as kind, unnest(tags) as value from notes
        where deleted_at is null and class = 'user-doc' and project = any(${project ? [project.id] : scopeIds.length ? scopeIds : ['00000000-0000-0000-0000-000000000000']}::uuid[])
      union select distinct 'type', type from notes
        where deleted_at is null and type is not null and class = 'user-doc' and project = any(${project ? [project.id] : scopeIds.length ? scopeIds : ['00000000-0000-0000-0000-000000000000']}::uuid[])
      union select distinct 'category', category from notes
        where deleted_at is null and class = 'agent-memory' and owner = ${p.user}
      order by 1, 2`.execute(kb.db);
    const values = (kind: string) => known.rows.filter((r) => r.kind === kind).map((r) => r.value);
    // What remember_about_user stored: the caller's memory about themselves, one note per category.
    const memory = await kb.db
      .selectFrom('notes')
      .select(['id', 'category', 'body', 'updated_at'])
      .where('class', '=', 'agent-memory')
      .where('owner', '=', p.user)
      .where('project', 'is', null)
      .where('deleted_at', 'is', null)
      .orderBy('category')
      .limit(PROFILE_MEMORY_LIMIT)
      .execute();
    const base = {
      profile: {
        facts: facts.map(noteView),
        keys,
        memory: memory.map((m) => ({
          id: m.id,
          category: m.category ?? '',
          content: m.body,
          updated_at: m.updated_at,
        })),
      },
      projects: projects.map(projectView),
      knownValues: { categories: values('category'), tags: values('tag'), types: values('type') },
    };
    if (!project) return ok(base);
    const counts = await sql<{ notes: number; folders: string[] }>`
      select count(*)::int as notes,
        coalesce(array_agg(distinct split_part(folder, '/', 1) order by split_part(folder, '/', 1)) filter (where folder <> ''), '{}') as folders
      from notes where project = ${project.id} and class = 'user-doc' and deleted_at is null`.execute(kb.db);
    const activity = new ActivityRepository(kb.db);
    const since = await activity.deltaSince(p.user, project.id);
    const changes = await activity.latest([project.id], null, DELTA_LIMIT, since);
    // More changes than the delta holds: say how many, and where the rest are.
    const total = changes.length < DELTA_LIMIT ? changes.length : await activity.countSince(project.id, since);
    return ok({
      ...base,
      project: {
        handle: project.handle,
        title: project.title,
        notes: counts.rows[0].notes,
        folders: counts.rows[0].folders,
      },
      delta: {
        since,
        changes: changes.map((c) => activityView(c, projects)),
        total,
        more: total > changes.length,
        ...(total > changes.length
          ? {
              rest: `Дельтада соңғы ${DELTA_LIMIT} өзгеріс, барлығы ${total}. Қалғандарын recent_activity (project: ${project.handle}, limit 100-ге дейін) көрсетеді, не жобаны list_notes арқылы шолыңыз.`,
            }
          : {}),
      },
    });
  });
}

/** whoami: principal, scope, memberships with their projects, capabilities. */
export function kbWhoamiHandler(kb: Kb) {
  return endpoint(kb_whoami, async (_args, ctx) => {
    const p = kb.access.principal(ctx);
    const spaces = await kb.access.memberships(p);
    const projects = await kb.access.projects(p);
    return ok({
      principal: p.user,
      full_name: p.full_name,
      scope: p.scope,
      memberships: spaces.map((s) => ({
        space: s.space,
        role: s.role,
        projects: projects.filter((x) => x.space === s.space).map((x) => x.handle),
      })),
      capabilities: {
        vector: kb.embeddings !== null,
        vectorStore: kb.embeddings ? (kb.pgvector ? 'pgvector' : 'column') : null,
        // How semantic search runs: pgvector; a scan of the plain column while the searched notes hold
        // at most vectorScanLimit vectors (above it search stays on text); or not at all.
        semantic: kb.embeddings ? (kb.pgvector ? 'pgvector' : 'scan') : 'off',
        vectorScanLimit: kb.embeddings && !kb.pgvector ? kb.vectorScanLimit : null,
        kazakh: kb.ts.kazakh,
        trash: true,
        revisions: true,
      },
    });
  });
}

/** get_my_projects: the flat list of handles. */
export function getMyProjectsHandler(kb: Kb) {
  return endpoint(get_my_projects, async (_args, ctx) => {
    const p = kb.access.principal(ctx);
    return ok({ projects: (await kb.access.projects(p)).map(projectView) });
  });
}
