import { z } from 'zod';
import { AccessChanged } from './access/projection.ts';
import { Timestamp } from './common.ts';
import type { ServiceName } from './tool.ts';

/** The JetStream stream that keeps every domain event. */
export const EVENTS_STREAM = 'STUDIUM_EVENTS';

/** Root of every event subject: `evt.<service>.<event>` (prefixed per deployment/test by the bus). */
export const EVENTS_SUBJECT_ROOT = 'evt';

/** Wildcard the events stream captures. */
export const EVENTS_SUBJECTS = `${EVENTS_SUBJECT_ROOT}.>`;

/** One domain event: who publishes it, its subject and payload schema. */
export interface EventContract<P extends z.ZodType = z.ZodType> {
  service: ServiceName;
  name: string;
  /** `evt.<service>.<name>`. */
  subject: string;
  payload: P;
}

/** Defines an event; the subject follows from service and name. */
export function defineEvent<P extends z.ZodType>(service: ServiceName, name: string, payload: P): EventContract<P> {
  return { service, name, subject: `${EVENTS_SUBJECT_ROOT}.${service}.${name}`, payload };
}

/** Subject of courses.course_published. */
export const COURSE_PUBLISHED = 'evt.courses.course_published';
/** Subject of courses.release_published. */
export const RELEASE_PUBLISHED = 'evt.courses.release_published';
/** Subject of courses.course_unpublished. */
export const COURSE_UNPUBLISHED = 'evt.courses.course_unpublished';
/** Subject of courses.course_announced. */
export const COURSE_ANNOUNCED = 'evt.courses.course_announced';
/** Subject of enrollment.enrolled. */
export const ENROLLED = 'evt.enrollment.enrolled';
/** Subject of enrollment.subscription_notified. */
export const SUBSCRIPTION_NOTIFIED = 'evt.enrollment.subscription_notified';
/** Subject of enrollment.user_created. */
export const USER_CREATED = 'evt.enrollment.user_created';

/** A course was opened to students (publish_course); `was_upcoming` — it was an announcement, subscribers get the email. */
export const CoursePublished = z.looseObject({
  course: z.string(),
  title: z.string(),
  release: z.string().nullable(),
  version: z.number().int().nullable(),
  was_upcoming: z.boolean(),
  by: z.string(),
  at: Timestamp,
});
export type CoursePublished = z.infer<typeof CoursePublished>;

/** Lesson keys of a release compared with the previous active release of the course. */
export const LessonChanges = z.looseObject({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
  unchanged: z.array(z.string()),
  /** Lessons whose quiz changed (open attempts there are cancelled with quiz_changed); a subset of `changed`. */
  quiz_changed: z.array(z.string()).optional(),
});
export type LessonChanges = z.infer<typeof LessonChanges>;

/** A release became the course's active version (pipeline publish); per-lesson changes against the previous one. */
export const ReleasePublished = z.looseObject({
  course: z.string(),
  course_key: z.string().optional(),
  release: z.string(),
  version: z.number().int(),
  /**
   * Monotonic per course, in the order activations happened (the course's card revision at the
   * activation): a re-activated older version has a higher activation than the one it replaces.
   * Consumers keep the release with the highest activation, never the highest version.
   */
  activation: z.number().int().optional(),
  digest: z.string(),
  commit: z.string().nullable().optional(),
  /** The first release of the course (possibly attached to an existing announcement). */
  first: z.boolean().optional(),
  lessons: LessonChanges,
  by: z.string().optional(),
  at: Timestamp,
});
export type ReleasePublished = z.infer<typeof ReleasePublished>;

/** A course (or an announcement) was removed from the catalog (unpublish_course). */
export const CourseUnpublished = z.looseObject({
  course: z.string(),
  by: z.string(),
  at: Timestamp,
});
export type CourseUnpublished = z.infer<typeof CourseUnpublished>;

/** A course was shown in the catalog as an announcement (announce_course). */
export const CourseAnnounced = z.looseObject({
  course: z.string(),
  title: z.string(),
  objectives: z.array(z.string()),
  by: z.string(),
  at: Timestamp,
});
export type CourseAnnounced = z.infer<typeof CourseAnnounced>;

/** A student was enrolled in a course, in a space (enroll or an organization's assignment). */
export const Enrolled = z.looseObject({
  user: z.string(),
  course: z.string(),
  space: z.string(),
  organization: z.string().nullable(),
  self_enrolled: z.boolean(),
  at: Timestamp,
});
export type Enrolled = z.infer<typeof Enrolled>;

/** A subscriber of an announcement was sent the "course released" email (once per subscription). */
export const SubscriptionNotified = z.looseObject({
  user: z.string(),
  course: z.string(),
  at: Timestamp,
});
export type SubscriptionNotified = z.infer<typeof SubscriptionNotified>;

/** A platform user appeared for the first time (provisioned by enrollment). */
export const UserCreated = z.looseObject({
  user: z.string(),
  full_name: z.string(),
  email: z.string().optional(),
  at: Timestamp,
});
export type UserCreated = z.infer<typeof UserCreated>;

/** Subject of courses.course_card_changed. */
export const COURSE_CARD_CHANGED = 'evt.courses.course_card_changed';

/** A lesson of the active release as the catalog and enrollment lists need it. */
export const CatalogLesson = z.object({
  id: z.string(),
  key: z.string(),
  title: z.string(),
  chapter: z.string(),
});

/**
 * The full catalog card of a course, sent whenever anything on it changes (create, update,
 * announce, publish, unpublish, a new release). State transfer, not a delta: a consumer keeps the
 * card with the highest `revision` and ignores older ones, so order and redelivery do not matter.
 */
export const CourseCardChanged = z.looseObject({
  course: z.string(),
  /** Monotonic per course. */
  revision: z.number().int(),
  course_key: z.string().nullable(),
  title: z.string(),
  summary: z.string(),
  description: z.string(),
  status: z.enum(['draft', 'upcoming', 'published']),
  /** Logins that may enroll and study before the course opens (author cabinet; absent in old events). */
  testers: z.array(z.string()).optional(),
  /** Goals shown for an announcement (course without release: its own; with release: chapter titles). */
  objectives: z.array(z.string()),
  release: z.string().nullable(),
  version: z.number().int().nullable(),
  lessons: z.array(CatalogLesson),
  /**
   * The active release's course document (key, title, how many sections), so reports can show
   * «0 of 4» before the student writes a cell; null when the release has none (or no release).
   */
  document: z.object({ key: z.string(), title: z.string(), blocks_total: z.number().int() }).nullable().optional(),
  at: Timestamp,
});
export type CourseCardChanged = z.infer<typeof CourseCardChanged>;

/** Where a lesson event happened: the student, the lesson (id and key), the session and its space. */
const LessonEventBase = {
  user: z.string(),
  course: z.string(),
  /** Lesson id (`<course>.<key>`). */
  lesson: z.string(),
  lesson_key: z.string(),
  session: z.string(),
  space: z.string(),
  /** The organization of an organization space; null in the personal space. */
  organization: z.string().nullable(),
  at: Timestamp,
};

/** A lesson session was started or continued (start_lesson). */
export const SessionStarted = z.looseObject({
  ...LessonEventBase,
  release: z.string(),
  version: z.number().int(),
  channel: z.enum(['agent', 'web']),
  opening: z.string(),
  /** The open session of the same lesson, space and channel this one replaced (now abandoned). */
  abandoned: z.string().nullable().optional(),
  /** The lesson's objectives in order (key and text), so read models need not read the release. */
  objectives: z.array(z.object({ key: z.string(), text: z.string() })),
});
export type SessionStarted = z.infer<typeof SessionStarted>;

/**
 * An item of a lesson was marked (mark_goal); the evidence stays in lessons. One mark_goal emits
 * this one event, also when the mark covers the lesson (`lesson_covered`).
 */
export const GoalMarked = z.looseObject({
  ...LessonEventBase,
  objective: z.string(),
  goal: z.string(),
  status: z.string(),
  /** The objective's status after the mark (not_started, touched, covered). */
  objective_status: z.string(),
  /**
   * This mark closed the lesson's last required item: the run became covered (at this event's
   * `at`). Until issue 32.4 that was a second event, `lesson_covered`; absent in those older events.
   */
  lesson_covered: z.boolean().optional(),
});
export type GoalMarked = z.infer<typeof GoalMarked>;

/**
 * Every required item of a lesson is closed (the lesson run became covered). No longer emitted:
 * goal_marked carries it as `lesson_covered` (issue 32.4). It stays in the catalog, and its
 * consumers keep applying it, while the stream (and a rebuild's replay) still holds older ones.
 */
export const LessonCovered = z.looseObject({ ...LessonEventBase });
export type LessonCovered = z.infer<typeof LessonCovered>;

/**
 * The verdict of a finished quiz attempt (what quiz_attempt_finished says besides the place), as
 * lesson_passed and lesson_failed carry it when that verdict is what passed or failed the lesson.
 */
export const QuizVerdict = z.looseObject({
  attempt: z.string(),
  number: z.number().int(),
  score: z.number(),
  passed: z.boolean(),
});
export type QuizVerdict = z.infer<typeof QuizVerdict>;

/**
 * A lesson was passed (a passed quiz or complete_lesson); `late` — after the enrollment's deadline.
 * Homework is assigned on it; enrollment and reporting count passed lessons from it.
 */
export const LessonPassed = z.looseObject({
  ...LessonEventBase,
  release: z.string(),
  version: z.number().int(),
  via: z.enum(['quiz', 'complete']),
  late: z.boolean(),
  /** Lessons of the course the student has passed now, and how many the active release has. */
  lessons_passed: z.number().int(),
  /** Keys of the lessons of the active release the student has passed now, in course order. */
  passed_lessons: z.array(z.string()).optional(),
  lessons_total: z.number().int(),
  /** Every lesson of the course is passed. */
  course_completed: z.boolean(),
  /** The student's full name as lessons knows it (homework's review queue shows it); optional for older events. */
  user_name: z.string().optional(),
  /**
   * Keys of the lessons of the active release the student can no longer pass (a required quiz
   * with no attempt left), in course order; absent in events written before they were reported.
   */
  failed_lessons: z.array(z.string()).optional(),
  /** Every lesson is passed or failed: nothing is left to study in the course (program order). */
  course_finished: z.boolean().optional(),
  /**
   * The attempt whose answer passed the lesson (`via` quiz), finished at this event's `at`: that
   * answer emits this one event, no quiz_attempt_finished (issue 32.4). Absent for
   * complete_lesson and in older events, which came after a quiz_attempt_finished of their own.
   */
  quiz_attempt: QuizVerdict.optional(),
});
export type LessonPassed = z.infer<typeof LessonPassed>;

/**
 * A lesson can no longer be passed: the last attempt of its required quiz failed (spec: «попытки
 * кончились — пересдачи не будет»). Carries the course's progress as lesson_passed does, so
 * enrollment and reporting learn that a course is finished (docs/decisions.md, the failed lesson).
 */
export const LessonFailed = z.looseObject({
  ...LessonEventBase,
  release: z.string(),
  version: z.number().int(),
  attempts_used: z.number().int(),
  lessons_passed: z.number().int(),
  passed_lessons: z.array(z.string()),
  failed_lessons: z.array(z.string()),
  lessons_total: z.number().int(),
  /** Every other lesson is passed or failed too: nothing is left to study in the course. */
  course_finished: z.boolean(),
  /**
   * The last attempt, whose answer failed the lesson, finished at this event's `at`: that answer
   * emits this one event, no quiz_attempt_finished (issue 32.4). Absent in older events, which
   * came after a quiz_attempt_finished of their own.
   */
  quiz_attempt: QuizVerdict.optional(),
});
export type LessonFailed = z.infer<typeof LessonFailed>;

/**
 * A quiz attempt ended with a verdict that neither passed nor failed the lesson (an attempt left,
 * an optional quiz, a lesson passed before). A verdict that did is carried by lesson_passed or
 * lesson_failed (`quiz_attempt`) instead, since issue 32.4: one event per answer.
 */
export const QuizAttemptFinished = z.looseObject({
  ...LessonEventBase,
  attempt: z.string(),
  number: z.number().int(),
  score: z.number(),
  passed: z.boolean(),
});
export type QuizAttemptFinished = z.infer<typeof QuizAttemptFinished>;

/** A quiz attempt was cancelled by a new release (quiz_changed, attempt_outdated, lesson_removed). */
export const QuizAttemptCancelled = z.looseObject({
  ...LessonEventBase,
  attempt: z.string(),
  number: z.number().int(),
  reason: z.string(),
});
export type QuizAttemptCancelled = z.infer<typeof QuizAttemptCancelled>;

/** Subject of courses.report_created. */
export const REPORT_CREATED = 'evt.courses.report_created';
/** Subject of courses.report_resolved. */
export const REPORT_RESOLVED = 'evt.courses.report_resolved';

/** A student's agent reported what prevents learning (report_issue); the text stays in courses. */
export const ReportCreated = z.looseObject({
  report: z.number().int(),
  user: z.string(),
  course: z.string(),
  /** Lesson id and key of the session's lesson. */
  lesson: z.string().nullable(),
  lesson_key: z.string().nullable(),
  session: z.string(),
  space: z.string(),
  kind: z.string(),
  /** The course's active release when reported; null before the first release. */
  release: z.string().nullable(),
  objective: z.string().nullable(),
  question_key: z.string().nullable(),
  at: Timestamp,
});
export type ReportCreated = z.infer<typeof ReportCreated>;

/** A curator changed a report's status (resolve_report); `resolved_at` is null unless it is closed. */
export const ReportResolved = z.looseObject({
  report: z.number().int(),
  user: z.string(),
  course: z.string(),
  status: z.enum(['in_progress', 'fixed', 'rejected', 'duplicate']),
  previous_status: z.string(),
  duplicate_of: z.number().int().nullable(),
  resolved_at: Timestamp.nullable(),
  by: z.string(),
  at: Timestamp,
});
export type ReportResolved = z.infer<typeof ReportResolved>;
/** A change of a homework submission: assigned, submitted, returned, accepted, acceptance_cancelled. */
export const HomeworkChanged = z.looseObject({
  submission: z.string(),
  user: z.string(),
  course: z.string(),
  /** Lesson id (`<course>.<key>`). */
  lesson: z.string(),
  space: z.string(),
  organization: z.string().nullable(),
  status: z.enum(['Assigned', 'Submitted', 'Returned', 'Accepted']),
  version: z.number().int().nullable(),
  due_at: Timestamp.nullable(),
  /** The curator who returned or accepted; the student for a submission; null for an assignment. */
  by: z.string().nullable(),
  comment: z.string().nullable(),
  at: Timestamp,
});
export type HomeworkChanged = z.infer<typeof HomeworkChanged>;

/**
 * A student's course document changed (update_artifact): how filled it now is. One document per
 * student, course and space, so reporting counts an organization's documents by `space`.
 */
export const DocumentUpdated = z.looseObject({
  user: z.string(),
  course: z.string(),
  space: z.string(),
  organization: z.string().nullable(),
  /** Key and title of the document in the course release. */
  artifact: z.string(),
  title: z.string(),
  blocks_total: z.number().int(),
  blocks_filled: z.number().int(),
  at: Timestamp,
});
export type DocumentUpdated = z.infer<typeof DocumentUpdated>;
/** Subject of knowledge.kb_note_changed. */
export const KB_NOTE_CHANGED = 'evt.knowledge.kb_note_changed';

/** A knowledge-base note changed (created, edited, moved, renamed, trashed, restored, purged; spec 004). */
export const KbNoteChanged = z.looseObject({
  note: z.string(),
  class: z.string(),
  /** Project handle; null for memory about the user. */
  project: z.string().nullable(),
  space: z.string().nullable(),
  action: z.string(),
  version: z.number().int(),
  by: z.string(),
  by_kind: z.enum(['human', 'agent']),
  at: Timestamp,
});
export type KbNoteChanged = z.infer<typeof KbNoteChanged>;

/** Subject of enrollment.user_updated. */
export const USER_UPDATED = 'evt.enrollment.user_updated';
/** Subject of enrollment.organization_changed. */
export const ORGANIZATION_CHANGED = 'evt.enrollment.organization_changed';
/** Subject of enrollment.membership_changed. */
export const MEMBERSHIP_CHANGED = 'evt.enrollment.membership_changed';
/** Subject of enrollment.assignment_changed. */
export const ASSIGNMENT_CHANGED = 'evt.enrollment.assignment_changed';
/** Subject of enrollment.access_changed (contracts `access/projection.ts`). */
export const ACCESS_CHANGED = 'evt.enrollment.access_changed';

/** A user's name changed (user_created carries the first one). State transfer: the newest `at` wins. */
export const UserUpdated = z.looseObject({
  user: z.string(),
  full_name: z.string(),
  at: Timestamp,
});
export type UserUpdated = z.infer<typeof UserUpdated>;

/** An organization was created, renamed, suspended or reinstated. State transfer: the newest `at` wins. */
export const OrganizationChanged = z.looseObject({
  organization: z.string(),
  title: z.string(),
  suspended: z.boolean(),
  at: Timestamp,
});
export type OrganizationChanged = z.infer<typeof OrganizationChanged>;

/**
 * A user joined an organization, changed role in it, or left it (`role` null). State transfer:
 * the newest `at` wins, so order and redelivery do not matter.
 */
export const MembershipChanged = z.looseObject({
  organization: z.string(),
  user: z.string(),
  role: z.enum(['manager', 'member']).nullable(),
  at: Timestamp,
});
export type MembershipChanged = z.infer<typeof MembershipChanged>;

/**
 * An organization assigned a course to a member or changed the assignment (mandatory, deadline).
 * Sent on every assignment, also when it only turned a self-enrollment of that space into one.
 */
export const AssignmentChanged = z.looseObject({
  user: z.string(),
  course: z.string(),
  space: z.string(),
  organization: z.string(),
  mandatory: z.boolean(),
  deadline: Timestamp.nullable(),
  at: Timestamp,
});
export type AssignmentChanged = z.infer<typeof AssignmentChanged>;

/** Catalog of every domain event, keyed `<service>.<event>`. */
export const events = {
  'courses.course_published': defineEvent('courses', 'course_published', CoursePublished),
  'courses.release_published': defineEvent('courses', 'release_published', ReleasePublished),
  'courses.course_unpublished': defineEvent('courses', 'course_unpublished', CourseUnpublished),
  'courses.course_announced': defineEvent('courses', 'course_announced', CourseAnnounced),
  'courses.course_card_changed': defineEvent('courses', 'course_card_changed', CourseCardChanged),
  'courses.report_created': defineEvent('courses', 'report_created', ReportCreated),
  'courses.report_resolved': defineEvent('courses', 'report_resolved', ReportResolved),
  'enrollment.enrolled': defineEvent('enrollment', 'enrolled', Enrolled),
  'enrollment.subscription_notified': defineEvent('enrollment', 'subscription_notified', SubscriptionNotified),
  'enrollment.user_created': defineEvent('enrollment', 'user_created', UserCreated),
  'enrollment.user_updated': defineEvent('enrollment', 'user_updated', UserUpdated),
  'enrollment.organization_changed': defineEvent('enrollment', 'organization_changed', OrganizationChanged),
  'enrollment.membership_changed': defineEvent('enrollment', 'membership_changed', MembershipChanged),
  'enrollment.assignment_changed': defineEvent('enrollment', 'assignment_changed', AssignmentChanged),
  'enrollment.access_changed': defineEvent('enrollment', 'access_changed', AccessChanged),
  'lessons.session_started': defineEvent('lessons', 'session_started', SessionStarted),
  'lessons.goal_marked': defineEvent('lessons', 'goal_marked', GoalMarked),
  'lessons.lesson_covered': defineEvent('lessons', 'lesson_covered', LessonCovered),
  'lessons.lesson_passed': defineEvent('lessons', 'lesson_passed', LessonPassed),
  'lessons.lesson_failed': defineEvent('lessons', 'lesson_failed', LessonFailed),
  'lessons.quiz_attempt_finished': defineEvent('lessons', 'quiz_attempt_finished', QuizAttemptFinished),
  'lessons.quiz_attempt_cancelled': defineEvent('lessons', 'quiz_attempt_cancelled', QuizAttemptCancelled),
  'homework.assigned': defineEvent('homework', 'assigned', HomeworkChanged),
  'homework.submitted': defineEvent('homework', 'submitted', HomeworkChanged),
  'homework.returned': defineEvent('homework', 'returned', HomeworkChanged),
  'homework.accepted': defineEvent('homework', 'accepted', HomeworkChanged),
  'homework.acceptance_cancelled': defineEvent('homework', 'acceptance_cancelled', HomeworkChanged),
  'homework.document_updated': defineEvent('homework', 'document_updated', DocumentUpdated),
  'knowledge.kb_note_changed': defineEvent('knowledge', 'kb_note_changed', KbNoteChanged),
} as const;

/** Key of an event in the catalog. */
export type EventKey = keyof typeof events;

/** Payload type of a catalog event. */
export type EventPayload<K extends EventKey> = z.infer<(typeof events)[K]['payload']>;
