import {
  accept_homework,
  cancel_acceptance,
  HOMEWORK_STATUSES,
  homework_queue,
  homework_submission,
  isAuthor,
  ok,
  type Principal,
  return_homework,
} from '@studium/contracts';
import { type CallContext, endpoint, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import { type CourseGateway, findLesson } from '../courses.ts';
import type { HomeworkDb } from '../db.ts';
import { ALLOWED_FROM, type HomeworkStatus, JOURNAL_EVENT, transition } from '../domain/homework.ts';
import { commentRequired, homeworkStatusUnknown, invalidTransition, submissionNotFound } from '../refusals.ts';
import { QUEUE_LIMIT, SubmissionRepository, type SubmissionRow } from '../repositories/submission.repository.ts';
import { transact } from '../store.ts';
import { emitChange } from '../submit.ts';
import { submissionView, type UrlSigner } from '../views.ts';

interface Deps {
  db: Kysely<HomeworkDb>;
  gateway: CourseGateway;
  signer: UrlSigner;
}

/** Roles that see every course's homework, like goal_runs (spec: moderators and administrators). */
const OVERSEERS = ['Moderator', 'Administrator', 'System Manager'];

function curator(ctx: CallContext): Principal {
  if (!ctx.principal) throw new Failure(401, 'no principal');
  if (!isAuthor(ctx.principal.roles)) throw new Failure(403, 'author role required');
  return ctx.principal;
}

const oversees = (p: Principal) => p.roles.some((r) => OVERSEERS.includes(r));

/** The course's curators now (its active release); a curator who does not lead the course gets 403. */
async function mayReview(deps: Deps, who: Principal, course: string): Promise<void> {
  if (oversees(who)) return;
  const release = await deps.gateway.release(course);
  const curators = 'ok' in release ? [] : release.content.course.curators;
  if (!curators.includes(who.user)) throw new Failure(403, 'not a curator of the course');
}

/** A submission as the curator's queue and a student's homework list show it (no answer, no files). */
export function reviewItem(row: SubmissionRow) {
  return {
    submission: row.id,
    course: row.course,
    lesson: row.lesson,
    lesson_key: row.lesson_key,
    student: row.user_id,
    student_name: row.student_name,
    space: row.space,
    status: row.status,
    version: row.version,
    submitted_at: row.submitted_at,
    due_at: row.due_at,
  };
}

/**
 * The course and lesson titles a person reads, from the course's active release (cached by the
 * gateway); a course without a release, or a lesson it removed, keeps its id and key.
 */
async function titled(gateway: CourseGateway, row: SubmissionRow) {
  const release = await gateway.release(row.course);
  const content = 'ok' in release ? null : release.content;
  const lesson = content ? findLesson(content, row.lesson_key) : undefined;
  return {
    ...reviewItem(row),
    course_title: content?.course.title ?? row.course,
    lesson_title: lesson?.title ?? row.lesson_key,
  };
}

async function reviewView(deps: Deps, repo: SubmissionRepository, row: SubmissionRow, version?: number) {
  const view = await submissionView(repo, deps.signer, row, { version });
  return { ...(await titled(deps.gateway, row)), ...view };
}

/** Most courses the queue offers as its filter. */
const FILTER_COURSES = 100;

/**
 * The courses the caller may filter the queue by: those with homework whose active release names
 * them a curator (mayReview's rule), every course for an overseer; by title.
 */
async function reviewCourses(deps: Deps, repo: SubmissionRepository, who: Principal) {
  const courses = [];
  for (const course of await repo.courses(FILTER_COURSES)) {
    const release = await deps.gateway.release(course);
    if ('ok' in release) continue;
    if (oversees(who) || release.content.course.curators.includes(who.user)) {
      courses.push({ course, title: release.content.course.title });
    }
  }
  return courses.sort((a, b) => a.title.localeCompare(b.title, 'ru'));
}

/** homework_queue: what waits for the curator; without course — the courses the curator leads. */
export function homeworkQueueHandler(deps: Deps) {
  const repo = new SubmissionRepository(deps.db);
  return endpoint(homework_queue, async (args, ctx) => {
    const who = curator(ctx);
    const status = (args.status ?? 'Submitted') as HomeworkStatus;
    if (!(HOMEWORK_STATUSES as readonly string[]).includes(status)) return homeworkStatusUnknown(args.status);
    if (args.course !== undefined) {
      const release = await deps.gateway.release(args.course);
      if ('ok' in release && release.error.code === 'course_not_found') return release;
      await mayReview(deps, who, args.course);
    }
    const rows = await repo.queue({
      status,
      course: args.course ?? null,
      curator: args.course !== undefined || oversees(who) ? null : who.user,
    });
    const items = [];
    for (const row of rows.slice(0, QUEUE_LIMIT)) items.push(await titled(deps.gateway, row));
    return ok({ items, has_more: rows.length > QUEUE_LIMIT, courses: await reviewCourses(deps, repo, who) });
  });
}

/** homework_submission: one submission with every version. */
export function homeworkSubmissionHandler(deps: Deps) {
  const repo = new SubmissionRepository(deps.db);
  return endpoint(homework_submission, async (args, ctx) => {
    const who = curator(ctx);
    const row = await repo.findById(args.submission);
    if (!row) return submissionNotFound(args.submission);
    await mayReview(deps, who, row.course);
    const version = args.version === undefined ? undefined : Number(args.version);
    return ok(await reviewView(deps, repo, row, Number.isInteger(version) ? version : undefined));
  });
}

type ReviewAction = 'return' | 'accept' | 'cancel_acceptance';
const EVENT_KEY = {
  return: 'homework.returned',
  accept: 'homework.accepted',
  cancel_acceptance: 'homework.acceptance_cancelled',
} as const;

/** One curator decision: lock, authorize, check comment and status, change, journal, event. */
async function decide(deps: Deps, ctx: CallContext, id: string, action: ReviewAction, rawComment: string | undefined) {
  const who = curator(ctx);
  const comment = rawComment?.trim() || null;
  return transact(deps.db, async (trx) => {
    const repo = new SubmissionRepository(trx);
    const row = await repo.lockById(id);
    if (!row) return submissionNotFound(id);
    await mayReview(deps, who, row.course);
    const next = transition(row.status, action);
    if (next === null) return invalidTransition(row.status, ALLOWED_FROM[action]);
    if (action !== 'accept' && !comment) return commentRequired();
    const updated = await repo.update(row.id, {
      status: next,
      ...(action === 'accept' ? {} : { last_comment: comment }),
    });
    await repo.addJournal({
      submission: row.id,
      event: JOURNAL_EVENT[action],
      actor: who.user,
      version: row.version,
      comment,
    });
    await emitChange(trx, EVENT_KEY[action], updated, who.user, comment);
    return ok(await reviewView(deps, repo, updated));
  });
}

/** return_homework, accept_homework and cancel_acceptance. */
export function reviewActionHandlers(deps: Deps) {
  return [
    endpoint(return_homework, (args, ctx) => decide(deps, ctx, args.submission, 'return', args.comment)),
    endpoint(accept_homework, (args, ctx) => decide(deps, ctx, args.submission, 'accept', args.comment)),
    endpoint(cancel_acceptance, (args, ctx) => decide(deps, ctx, args.submission, 'cancel_acceptance', args.comment)),
  ];
}
