import type { MarkContext } from './repositories/run.repository.ts';

/**
 * mark_goal's context of the sessions this replica wrote last (the session, the run's status and
 * marks, the active release), so that the next mark on a session skips the read. It is only ever a
 * guess: mark_goal_write compares it with the current state and answers `stale` with that state
 * when another replica wrote or a release was published, and a refusal is never decided on it.
 * At most `limit` sessions; the least recently written go first.
 */
export class MarkContexts {
  private readonly kept = new Map<string, MarkContext>();

  constructor(private readonly limit: number) {}

  get(session: string): MarkContext | undefined {
    return this.kept.get(session);
  }

  set(session: string, context: MarkContext): void {
    if (this.limit <= 0) return;
    this.kept.delete(session);
    this.kept.set(session, context);
    if (this.kept.size > this.limit) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
  }

  delete(session: string): void {
    this.kept.delete(session);
  }

  get size(): number {
    return this.kept.size;
  }
}
