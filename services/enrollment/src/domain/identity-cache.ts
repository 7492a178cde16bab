/**
 * A small in-process cache of per-user identity reads (whoami), kept fresh by the
 * principal-changed announcements that every replica receives; the TTL bounds staleness when an
 * announcement is lost or a change was made without NATS (the admin CLI offline).
 */
export class IdentityCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  /** Bumped on every forget: a read that overlapped a change is not stored (it may be stale). */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  get(user: string): T | undefined {
    const hit = this.entries.get(user);
    if (!hit) return undefined;
    if (hit.until <= Date.now()) {
      this.entries.delete(user);
      return undefined;
    }
    return hit.value;
  }

  /** The current generation; pass it back to {@link set} after the read. */
  mark(): number {
    return this.generation;
  }

  set(user: string, value: T, readAt = this.generation): void {
    if (this.ttlMs <= 0 || readAt !== this.generation) return;
    if (this.entries.size >= this.maxEntries) {
      // Drop the oldest insertion: Map keeps insertion order.
      const first = this.entries.keys().next().value;
      if (first !== undefined) this.entries.delete(first);
    }
    this.entries.set(user, { value, until: Date.now() + this.ttlMs });
  }

  forget(user: string): void {
    this.generation++;
    this.entries.delete(user);
  }
}
