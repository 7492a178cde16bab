/**
 * A small in-process cache of per-user identity reads (whoami), kept fresh by the
 * principal-changed announcements that every replica receives; the TTL bounds staleness when an
 * announcement is lost or a change was made without NATS (the admin CLI offline).
 */
export class IdentityCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

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

  set(user: string, value: T): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Drop the oldest insertion: Map keeps insertion order.
      const first = this.entries.keys().next().value;
      if (first !== undefined) this.entries.delete(first);
    }
    this.entries.set(user, { value, until: Date.now() + this.ttlMs });
  }

  forget(user: string): void {
    this.entries.delete(user);
  }
}
