import { type AccessChanged, type CourseAccess, ok, type Principal, type Reply } from '@studium/contracts';
import { Failure } from '@studium/platform';
import type { LessonsDeps } from './deps.ts';
import { refusals } from './refusals.ts';
import type { LoadedRelease, PlacedLesson } from './releases.ts';
import type { Session } from './repositories/session.repository.ts';

/**
 * The access check of a course tool: decided from the access projection, as enrollment.course_access
 * decides (a refusal or a program lock is asked of enrollment itself). `fresh` is kept for the
 * callers' intent; the projection is as fresh as one event's lag (docs/decisions.md).
 */
export function checkAccess(
  deps: Pick<LessonsDeps, 'access'>,
  principal: Principal,
  course: string,
  space: string | null,
  courseSpace: string | null,
  fresh = true,
  known?: { doc: AccessChanged | null },
): Promise<Reply<CourseAccess>> {
  void fresh;
  return deps.access.check(principal, { course, space, course_space: courseSpace }, known);
}

/**
 * The access check of a session's course in the session's space. A space the student no longer
 * has (or that no longer holds the course) means the access behind this session was revoked: the
 * spec's not_enrolled for the session tools (and submit_answer), which list no space refusals.
 */
export async function sessionAccess(
  deps: Pick<LessonsDeps, 'access'>,
  principal: Principal,
  session: Pick<Session, 'course' | 'space'>,
  fresh = true,
  known?: { doc: AccessChanged | null },
): Promise<Reply<CourseAccess>> {
  const access = await checkAccess(deps, principal, session.course, session.space, session.space, fresh, known);
  if (access.ok) return access;
  const code = access.error.code;
  if (code === 'space_not_available' || code === 'course_not_in_space') {
    return refusals.accessRevoked(session.course, session.space);
  }
  return access;
}

/** A session of the caller with its access, the course's active release and the lesson in it. */
export interface SessionContext {
  session: Session;
  access: CourseAccess;
  active: LoadedRelease;
  /** The lesson in the active release; null when the release removed it. */
  placed: PlacedLesson | null;
}

/**
 * Loads the caller's session and checks, in the spec's order (`fresh: false` — a granted access
 * kept a few seconds will do, see AccessCache): the session exists and is the caller's
 * (not_your_session for either), the course is open to them (access refusals) and
 * released (course_not_released). The lesson's presence in the release is left to the caller.
 */
export async function loadSession(
  deps: LessonsDeps,
  principal: Principal | null,
  sessionId: string,
  opts: { fresh: boolean } = { fresh: true },
): Promise<Reply<SessionContext>> {
  if (!principal) throw new Failure(401, 'no principal');
  // The session and its course's active_releases row in one statement.
  const found = await deps.sessions.findWithActive(sessionId);
  return checkSession(
    deps,
    principal,
    sessionId,
    found?.session,
    opts,
    (course) => deps.releases.activeFrom(course, found?.activeRelease ?? null),
    found && { doc: found.accessDoc },
  );
}

/**
 * {@link loadSession}'s checks on a session already read (undefined: none), with the way to the
 * course's active release (mark_goal reads the active_releases row together with the session).
 */
export async function checkSession(
  deps: LessonsDeps,
  principal: Principal | null,
  sessionId: string,
  session: Session | undefined,
  opts: { fresh: boolean },
  activeRelease: (course: string) => Promise<Reply<LoadedRelease>>,
  /** The student's access document as the caller's statement read it (see {@link checkAccess}). */
  known?: { doc: AccessChanged | null },
): Promise<Reply<SessionContext>> {
  if (!principal) throw new Failure(401, 'no principal');
  // An unknown id is refused like another student's (docs/decisions.md: it does not tell them apart).
  if (!session || session.user_id !== principal.user) return refusals.notYourSession(sessionId);
  const [access, active] = await Promise.all([
    sessionAccess(deps, principal, session, opts.fresh, known),
    activeRelease(session.course),
  ]);
  if (!access.ok) return access;
  if (!active.ok) return active.error.code === 'course_not_found' ? refusals.courseNotReleased(session.course) : active;
  return ok({
    session,
    access: access.data,
    active: active.data,
    placed: active.data.lessons.get(session.lesson_key) ?? null,
  });
}
