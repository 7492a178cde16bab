import type { ActivityRow } from '../../repositories/activity.repository.ts';
import type { ProjectRow } from '../../repositories/project.repository.ts';

/** A change as recent_activity and the delta show it. */
export function activityView(a: ActivityRow, projects: ProjectRow[]) {
  return {
    note: a.note,
    title: a.title,
    path: a.folder,
    project: projects.find((p) => p.id === a.project)?.handle ?? null,
    action: a.action,
    by: { user: a.by_user, kind: a.by_kind as 'human' | 'agent' },
    at: a.at,
  };
}
