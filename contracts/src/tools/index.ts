import type { ToolContract } from '../tool.ts';
import { add_note } from './curator/add-note.ts';
import { announce_course } from './curator/announce-course.ts';
import { course_notes } from './curator/course-notes.ts';
import { course_release } from './curator/course-release.ts';
import { course_releases } from './curator/course-releases.ts';
import { course_reports } from './curator/course-reports.ts';
import { create_course } from './curator/create-course.ts';
import { goal_runs } from './curator/goal-runs.ts';
import {
  accept_homework,
  cancel_acceptance,
  homework_queue,
  homework_submission,
  return_homework,
} from './curator/homework-review.ts';
import { list_courses } from './curator/list-courses.ts';
import { publish_course } from './curator/publish-course.ts';
import { reply_note } from './curator/reply-note.ts';
import { resolve_note } from './curator/resolve-note.ts';
import { resolve_report } from './curator/resolve-report.ts';
import { unpublish_course } from './curator/unpublish-course.ts';
import { update_course } from './curator/update-course.ts';
import { artifact } from './student/artifact.ts';
import { choose } from './student/choose.ts';
import { complete_lesson } from './student/complete-lesson.ts';
import { course_outline } from './student/course-outline.ts';
import { enroll } from './student/enroll.ts';
import { fill_document } from './student/fill-document.ts';
import { forget } from './student/forget.ts';
import { get_my_progress } from './student/get-my-progress.ts';
import { lesson_item } from './student/lesson-item.ts';
import { list_catalog } from './student/list-catalog.ts';
import { list_my_courses } from './student/list-my-courses.ts';
import { mark_goal } from './student/mark-goal.ts';
import { my_homework } from './student/my-homework.ts';
import { my_notes } from './student/my-notes.ts';
import { my_reports } from './student/my-reports.ts';
import { notify_when_released } from './student/notify-when-released.ts';
import { org_report } from './student/org-report.ts';
import { remember } from './student/remember.ts';
import { report_issue } from './student/report-issue.ts';
import { request_quiz } from './student/request-quiz.ts';
import { set_space } from './student/set-space.ts';
import { start_lesson } from './student/start-lesson.ts';
import { store_homework_file } from './student/store-homework-file.ts';
import { student_detail } from './student/student-detail.ts';
import { submit_answer } from './student/submit-answer.ts';
import { submit_homework } from './student/submit-homework.ts';
import { update_artifact } from './student/update-artifact.ts';
import { upload_homework_file } from './student/upload-homework-file.ts';
import { whoami } from './student/whoami.ts';

export { ReleaseLesson as ReleaseLessonView } from './curator/course-release.ts';
export { ReviewItem, ReviewSubmission } from './curator/homework-review.ts';
export * from './shapes.ts';
export { StudentNote } from './student/my-notes.ts';
export { PreviousHomework } from './student/start-lesson.ts';
export { SUBMIT_HOMEWORK_REFUSALS } from './student/submit-homework.ts';
export { OrganizationView } from './student/whoami.ts';

export {
  accept_homework,
  add_note,
  announce_course,
  artifact,
  cancel_acceptance,
  choose,
  complete_lesson,
  course_notes,
  course_outline,
  course_release,
  course_releases,
  course_reports,
  create_course,
  enroll,
  fill_document,
  forget,
  get_my_progress,
  goal_runs,
  homework_queue,
  homework_submission,
  lesson_item,
  list_catalog,
  list_courses,
  list_my_courses,
  mark_goal,
  my_homework,
  my_notes,
  my_reports,
  notify_when_released,
  org_report,
  publish_course,
  remember,
  reply_note,
  report_issue,
  request_quiz,
  resolve_note,
  resolve_report,
  return_homework,
  set_space,
  start_lesson,
  store_homework_file,
  student_detail,
  submit_answer,
  submit_homework,
  unpublish_course,
  update_artifact,
  update_course,
  upload_homework_file,
  whoami,
};

/** The 29 student tools served at /mcp, in the overview order (alphabetical). */
export const studentTools = [
  artifact,
  choose,
  complete_lesson,
  course_outline,
  enroll,
  fill_document,
  forget,
  get_my_progress,
  lesson_item,
  list_catalog,
  list_my_courses,
  mark_goal,
  my_homework,
  my_notes,
  my_reports,
  notify_when_released,
  org_report,
  remember,
  report_issue,
  request_quiz,
  set_space,
  start_lesson,
  store_homework_file,
  student_detail,
  submit_answer,
  submit_homework,
  update_artifact,
  upload_homework_file,
  whoami,
] as const satisfies readonly ToolContract[];

/** The curator tools served at /authoring: the 15 of the overview, then homework review. */
export const curatorTools = [
  add_note,
  announce_course,
  course_notes,
  course_release,
  course_releases,
  course_reports,
  create_course,
  goal_runs,
  list_courses,
  publish_course,
  reply_note,
  resolve_note,
  resolve_report,
  unpublish_course,
  update_course,
  homework_queue,
  homework_submission,
  return_homework,
  accept_homework,
  cancel_acceptance,
] as const satisfies readonly ToolContract[];

/** Every tool contract, student first. */
export const allTools: readonly ToolContract[] = [...studentTools, ...curatorTools];

// The author cabinet's own operations (issue 24): no MCP endpoint lists them.
export * from './cabinet/index.ts';
// The /kb set of spec 004 (knowledge service).
export * from './kb/index.ts';
