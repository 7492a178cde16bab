import {
  type CourseAccess,
  courseAccess,
  decodePrincipalChanged,
  PRINCIPAL_CHANGED,
  type Principal,
  type Reply,
} from '@studium/contracts';
import type { Bus } from '@studium/platform';
import type { Subscription } from 'nats';

/**
 * Granted course access, kept briefly per (student, course, space) for the tools an agent calls
 * many times in a row (mark_goal, lesson_item, request_quiz). Refusals are never kept, and
 * enrollment's principal-changed announcement (organization suspended, membership removed, roles
 * or space changed) drops the student's entries at once, as the edge drops its cached principals.
 * submit_answer, start_lesson and complete_lesson always ask afresh.
 */
export class AccessCache {
  private readonly kept = new Map<string, { at: number; reply: Reply<CourseAccess> }>();
  /** Bumped on every announcement: a check that started before it is not kept. */
  private readonly generation = new Map<string, number>();
  private readonly subscription: Subscription | null;

  constructor(
    private readonly bus: Bus,
    private readonly ttlMs: number,
  ) {
    this.subscription =
      ttlMs > 0
        ? bus.nc.subscribe(bus.subject(PRINCIPAL_CHANGED), {
            callback: (_err, msg) => {
              const changed = decodePrincipalChanged(msg.data);
              if (changed) this.forget(changed.user);
            },
          })
        : null;
  }

  /** The access check of the caller (its signed principal goes along); `fresh` skips the kept answer. */
  async check(
    principal: Principal,
    q: { course: string; space: string | null; course_space: string | null },
    fresh: boolean,
  ): Promise<Reply<CourseAccess>> {
    const user = principal.user;
    const key = `${user}\n${q.course}\n${q.space ?? ''}\n${q.course_space ?? ''}`;
    const held = this.kept.get(key);
    if (!fresh && held && Date.now() - held.at < this.ttlMs) return held.reply;
    const gen = this.generation.get(user) ?? 0;
    const reply = await this.bus.request(courseAccess, principal, { user, ...q });
    if (this.ttlMs > 0 && reply.ok && (this.generation.get(user) ?? 0) === gen) {
      if (this.kept.size > 50_000) this.kept.clear();
      this.kept.set(key, { at: Date.now(), reply });
    }
    return reply;
  }

  forget(user: string): void {
    this.generation.set(user, (this.generation.get(user) ?? 0) + 1);
    for (const key of this.kept.keys()) if (key.startsWith(`${user}\n`)) this.kept.delete(key);
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}
