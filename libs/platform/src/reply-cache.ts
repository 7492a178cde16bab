/** A reply kept by a caller together with the validator its service gave it. */
export interface CachedReply {
  etag: string;
  /** The reply as the handler returned it; shared by every hit, so never to be mutated. */
  reply: unknown;
  /** Size of the reply on the wire; times the cache's footprint factor, what it is bounded by. */
  bytes: number;
}

/**
 * The caller's side of conditional requests (see {@link Bus.request}): replies that came with an
 * ETag, least recently used first out, bounded by their estimated memory: the size on the wire
 * times `footprint` (the parsed reply and whatever the caller derives from it), and the key. A hit is only
 * ever returned after the service confirmed the ETag is still current, so the cache can make a
 * reply cheaper but never older.
 */
export class ReplyCache {
  private readonly entries = new Map<string, CachedReply & { cost: number }>();
  private total = 0;
  /** Requests answered with a kept reply ("not modified"). */
  hits = 0;
  /** Tagged replies sent in full and kept: first requests, and those whose kept reply had changed. */
  stored = 0;

  constructor(
    /** The memory budget, bytes. */
    readonly maxBytes: number,
    /** Memory per byte on the wire of a kept reply. */
    readonly footprint = 1,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Estimated memory of the kept replies. */
  get bytes(): number {
    return this.total;
  }

  get(key: string): CachedReply | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Map order is insertion order: moving the entry to the end makes the first one the coldest.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedReply): void {
    this.delete(key);
    // The key holds the request's arguments, as long as a caller makes them: it is counted too.
    const cost = entry.bytes * this.footprint + key.length * 2;
    if (cost > this.maxBytes) return;
    this.entries.set(key, { ...entry, cost });
    this.total += cost;
    for (const [coldest, old] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(coldest);
      this.total -= old.cost;
    }
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.total -= old.cost;
  }
}
