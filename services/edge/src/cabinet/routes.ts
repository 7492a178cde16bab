import {
  accept_homework,
  cancel_acceptance,
  course_notes,
  course_release,
  course_releases,
  course_reports,
  course_testers,
  goal_runs,
  grant_tester,
  homework_queue,
  homework_submission,
  isAuthor,
  list_courses,
  pass_counts,
  resolve_report,
  return_homework,
  review_note,
  revoke_tester,
  type ToolContract,
  write_note,
} from '@studium/contracts';
import type { WebAppDef } from '../web/index.ts';

/**
 * The tools the cabinet pages call: the curator's own /authoring tools (same services, rules and
 * refusals as for the curator's agent) and the cabinet's person-only ones (write_note,
 * review_note, testers), which no MCP endpoint lists.
 */
export const CABINET_TOOLS = [
  list_courses,
  course_releases,
  course_release,
  course_notes,
  write_note,
  review_note,
  course_reports,
  resolve_report,
  goal_runs,
  pass_counts,
  homework_queue,
  homework_submission,
  return_homework,
  accept_homework,
  cancel_acceptance,
  course_testers,
  grant_tester,
  revoke_tester,
] as unknown as ToolContract[];

/** The author's cabinet (issue 24): for the author roles only, like /authoring. */
export function cabinetApp(): WebAppDef {
  return {
    name: 'cabinet',
    title: 'Кабинет автора',
    pages: [
      '/cabinet',
      '/cabinet/courses/:course',
      '/cabinet/courses/:course/:tab',
      '/cabinet/homework',
      '/cabinet/homework/:submission',
    ],
    tools: CABINET_TOOLS,
    allow: (principal) => isAuthor(principal.roles),
    forbidden: 'Кабинет автора открыт авторам курсов, модераторам и администраторам.',
  };
}
