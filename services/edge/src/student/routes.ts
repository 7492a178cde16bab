import {
  artifact,
  course_outline,
  enroll,
  forget,
  get_my_progress,
  list_catalog,
  list_my_courses,
  my_homework,
  my_notes,
  my_reports,
  notify_when_released,
  remember,
  set_space,
  store_homework_file,
  submit_homework,
  type ToolContract,
  update_artifact,
  whoami,
} from '@studium/contracts';
import type { WebAppDef } from '../web/index.ts';

/** The tools the student pages call: the agent's own, nothing else. */
export const STUDENT_TOOLS = [
  whoami,
  set_space,
  list_my_courses,
  list_catalog,
  enroll,
  notify_when_released,
  course_outline,
  my_homework,
  submit_homework,
  store_homework_file,
  artifact,
  update_artifact,
  my_notes,
  remember,
  forget,
  my_reports,
  get_my_progress,
] as unknown as ToolContract[];

/**
 * The student's web pages (issue 22). `/lessons/<lesson>` is the lesson_url my_homework and
 * upload_homework_file give (homework's views.ts builds it from the same PUBLIC_URL).
 */
export function studentApp(): WebAppDef {
  return {
    name: 'student',
    title: 'Учёба',
    pages: [
      '/',
      '/catalog',
      '/courses/:course',
      '/lessons/:lesson',
      '/documents',
      '/profile',
      '/profile/assistants',
      '/reports',
    ],
    tools: STUDENT_TOOLS,
  };
}
