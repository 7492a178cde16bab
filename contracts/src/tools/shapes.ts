import { z } from 'zod';
import { Timestamp } from '../common.ts';

/** Statuses of a lesson goal item (пункт урока), as mark_goal sets them. */
export const GOAL_STATUSES = ['open', 'done', 'planned', 'not_needed'] as const;
/** Status of a lesson goal item in responses. */
export const GoalStatus = z.enum(GOAL_STATUSES);

/** Status of a lesson objective (цель урока) by its items. */
export const ObjectiveStatus = z.enum(['not_started', 'touched', 'covered']);

/** Kinds of a student note (remember). */
export const NOTE_KINDS = ['fact', 'project', 'observation'] as const;

/** Canonical fact keys that make up the student profile (outside the note limit). */
export const PROFILE_KEYS = [
  'role',
  'industry',
  'company',
  'goal',
  'current_task',
  'background',
  'tools',
  'learning_style',
  'time_budget',
] as const;

/** Kinds of a report to course authors (report_issue, course_reports). */
export const REPORT_KINDS = [
  'stuck',
  'misconception',
  'material_issue',
  'quiz_question_issue',
  'directive_mismatch',
  'out_of_scope',
] as const;

/** Statuses of a report. */
export const REPORT_STATUSES = ['new', 'in_progress', 'fixed', 'rejected', 'duplicate'] as const;
/** Status of a report in responses. */
export const ReportStatus = z.enum(REPORT_STATUSES);

/** Statuses a curator may set with resolve_report. */
export const REPORT_RESOLVE_STATUSES = ['in_progress', 'fixed', 'rejected', 'duplicate'] as const;

/** Statuses of a curator note (course_notes). */
export const NOTE_STATUSES = ['open', 'done', 'accepted'] as const;
/** Status of a curator note in responses. */
export const CuratorNoteStatus = z.enum(NOTE_STATUSES);

/** Whose move a curator note awaits; null for an accepted note. */
export const WaitingOn = z.enum(['agent', 'author']).nullable();

/** Statuses of a homework (my_homework). */
export const HOMEWORK_STATUSES = ['Assigned', 'Submitted', 'Returned', 'Accepted'] as const;
/** Status of a homework in responses. */
export const HomeworkStatus = z.enum(HOMEWORK_STATUSES);

/** How start_lesson says to open the session. */
export const OPENINGS = ['first_in_course', 'new_lesson', 'return', 'repeat'] as const;

/** Statuses of a lesson run (goal_runs). */
export const RUN_STATUSES = ['not_started', 'in_progress', 'covered', 'passed'] as const;

/** Reasons a quiz attempt is cancelled by a new course version. */
export const CANCEL_REASONS = ['quiz_changed', 'attempt_outdated', 'lesson_removed'] as const;

/** Statuses org_report filters by. */
export const ORG_REPORT_STATUSES = ['not_started', 'in_progress', 'completed'] as const;

/** org_report paging (beyond the spec): rows per page by default and at most. */
export const ORG_REPORT_PAGE = { default: 100, max: 500 } as const;

/** Spec limits the services enforce (refusals carry them as limit/max). */
export const LIMITS = {
  /** mark_goal evidence, characters (evidence_too_long). */
  evidence: 500,
  /** mark_goal resume_from, characters (resume_from_too_long). */
  resumeFrom: 500,
  /** update_artifact cell value, characters (artifact_invalid_value). */
  cell: 4000,
  /** report_issue text is cut to this many characters. */
  reportText: 2000,
  /** report_issue objective is cut to this many characters. */
  reportObjective: 140,
  /** goal_runs page size, maximum and default. */
  goalRunsPage: 20,
  /** course_reports returns this many fresh reports. */
  courseReports: 50,
  /** Files in one homework answer. */
  homeworkFiles: 10,
  /** One homework file, bytes. */
  homeworkFileBytes: 10 * 1024 * 1024,
  /** New homework files in one submission, bytes. */
  homeworkBatchBytes: 30 * 1024 * 1024,
  /** Bytes of homework files one student keeps in all (every answer, every version): answer_too_large past it. */
  homeworkQuotaBytes: 300 * 1024 * 1024,
} as const;

/** A report number: agents may pass it as a number or a numeric string. */
export const ReportNumberArg = z.union([z.number(), z.string()]);

/** A report number in responses. */
export const ReportNumber = z.number().int();

/** `space` of a course tool: defaults to the space of the started session on the course. */
export const CourseSpaceArg = z
  .string()
  .describe('Организация из whoami или personal; без него — пространство начатого занятия по курсу, иначе выбранное.');

/** A reference to a course: id and title. */
export const CourseRef = z.looseObject({ course: z.string(), title: z.string() });

/** A reference to a lesson: id and title. */
export const LessonRef = z.looseObject({ id: z.string(), title: z.string() });

/** The next step as data (start_lesson, mark_goal); null when the lesson is passed. */
export const NextStep = z
  .discriminatedUnion('kind', [
    z.looseObject({ kind: z.literal('goal'), objective: z.string(), goal: z.string(), title: z.string() }),
    z.looseObject({ kind: z.literal('quiz') }),
    z.looseObject({ kind: z.literal('complete') }),
  ])
  .nullable();

/** A program (chain of courses) the course belongs to, and the course's place in it. */
export const ProgramView = z.looseObject({
  program: z.string(),
  title: z.string(),
  position: z.number().int().describe('Место курса в программе: «position из total»'),
  total: z.number().int(),
  ordered: z.boolean().optional().describe('Курсы программы идут в обязательном порядке'),
  previous: CourseRef.nullable(),
  next: CourseRef.nullable(),
  member: z.boolean().describe('Участник ли ученик программы'),
});

/** `programs` and `locked_by` of a course in the student's course lists. */
export const ProgramFields = {
  programs: z.array(ProgramView),
  locked_by: CourseRef.nullable().optional().describe('Курс, который пройти раньше: этот курс заперт программой'),
};

/** Whether a document column is required: yes, no, or when the named column of the same row is filled. */
export const ColumnRequired = z.union([z.boolean(), z.looseObject({ if_column: z.string() })]);

/** A column of a `many` block or a field of a `one` block. */
export const ArtifactColumn = z.looseObject({ key: z.string(), title: z.string(), required: ColumnRequired });

/** A missing required cell: row and column of a `many` block, or field of a `one` block. */
export const EmptyCell = z.looseObject({
  row: z.string().optional(),
  column: z.string().optional(),
  field: z.string().optional(),
});

/** A block (раздел) of a course document with its content. */
export const ArtifactBlock = z.looseObject({
  key: z.string(),
  title: z.string(),
  description: z.string(),
  lesson: z.string().nullable(),
  rows: z.enum(['many', 'one']),
  columns: z.array(ArtifactColumn),
  items: z
    .array(z.looseObject({ id: z.string() }))
    .optional()
    .describe('Строки раздела many: id и заполненные клетки'),
  values: z.record(z.string(), z.string()).optional().describe('Заполненные поля раздела one'),
  filled: z.boolean(),
  empty_cells: z.array(EmptyCell),
});

/** How many blocks of a document there are and how many are filled. */
export const DocumentFill = z.looseObject({ blocks_total: z.number().int(), blocks_filled: z.number().int() });

/** A course document in the list of documents. */
export const ArtifactSummary = z.looseObject({
  key: z.string(),
  title: z.string(),
  description: z.string().describe('Зачем документ ученику'),
  ...DocumentFill.shape,
});

/** A course document by blocks, in the author's order. */
export const ArtifactDocument = z.looseObject({
  key: z.string(),
  title: z.string(),
  description: z.string().optional(),
  blocks: z.array(ArtifactBlock),
});

/** What artifact and fill_document return: the list without a key, one document with it. */
export const ArtifactViewFields = {
  space: z.string().describe('Чей документ прочитан'),
  course: z.string(),
  artifacts: z.array(ArtifactSummary).optional().describe('Перечень документов курса (вызов без artifact)'),
  artifact: ArtifactDocument.optional().describe('Документ по разделам (вызов с artifact)'),
};

/** A reference to a document block (empty_blocks). */
export const BlockRef = z.looseObject({ artifact: z.string(), key: z.string(), title: z.string() });

/** Statuses of the lesson's objectives (mid-session progress, without items). */
export const ObjectiveProgress = z.looseObject({
  key: z.string(),
  title: z.string().optional(),
  status: ObjectiveStatus,
});

/** A homework task as the author set it. */
export const HomeworkTask = z.looseObject({
  title: z.string(),
  description: z.string(),
  answer_mode: z.string().describe('Режим ответа: текст, файлы или то и другое'),
  due: z.string().nullable().describe('Правило срока'),
});

/** A file of a homework answer. */
export const HomeworkFile = z.looseObject({
  name: z.string(),
  type: z.string(),
  size: z.number().int(),
  url: z.string(),
});

/** An event in the homework journal. */
export const HomeworkEvent = z.looseObject({
  at: Timestamp,
  event: z.string(),
  comment: z.string().nullable().optional(),
});

/** One saved version of a homework answer. */
export const HomeworkVersion = z.looseObject({
  version: z.number().int(),
  status: HomeworkStatus,
  answer: z.string().nullable(),
  files: z.array(HomeworkFile),
  submitted_at: Timestamp,
});

/** A homework submission: the current answer, its files, journal and versions. */
export const Submission = z.looseObject({
  status: HomeworkStatus,
  due_at: Timestamp.nullable(),
  overdue: z.boolean().optional(),
  version: z.number().int().nullable(),
  answer: z.string().nullable(),
  files: z.array(HomeworkFile),
  events: z.array(HomeworkEvent),
  versions: z.array(HomeworkVersion).optional(),
});

/** What submit_homework and store_homework_file return. */
export const SubmissionResult = z.looseObject({ space: z.string(), submission: Submission });

/** A report as the student sees it (my_reports, closed_reports of start_lesson). */
export const StudentReportView = z.looseObject({
  id: ReportNumber,
  kind: z.string(),
  course: z.string().optional(),
  lesson: z.string().nullable(),
  lesson_title: z.string().nullable(),
  objective: z.string().nullable(),
  text: z.string(),
  created_at: Timestamp,
  status: ReportStatus,
  resolution: z.string().nullable(),
  resolved_at: Timestamp.nullable(),
});

/** A quiz question without the correct answer. */
export const QuizQuestion = z.looseObject({
  id: z.string(),
  text: z.string(),
  kind: z.string().describe('Вид вопроса: choice'),
  options: z.array(z.looseObject({ id: z.string(), text: z.string() })),
  number: z.number().int(),
  total: z.number().int(),
});

/** A curator note on a place of the course release. */
export const CuratorNote = z.looseObject({
  note: z.string(),
  course: z.string(),
  target: z.string(),
  release: z.string().nullable(),
  version: z.number().int().nullable(),
  lesson_key: z.string().nullable(),
  label: z.string(),
  missing: z.boolean(),
  status: CuratorNoteStatus,
  waiting_on: WaitingOn,
});

/** A note's state after a reply or resolution. */
export const NoteState = z.looseObject({
  note: z.string(),
  status: CuratorNoteStatus,
  waiting_on: WaitingOn,
  reply_count: z.number().int(),
});
