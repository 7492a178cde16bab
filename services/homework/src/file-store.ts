import { homeworkBucket } from '@studium/platform';
import type { NatsConnection, ObjectStore } from 'nats';

/**
 * The object store of homework files. The edge puts the bytes there (store_homework_file); this
 * service checks what arrived, keeps the records and removes what it refuses.
 */
export class FileStore {
  private store: Promise<ObjectStore> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
  ) {}

  private bucket(): Promise<ObjectStore> {
    if (!this.store) {
      this.store = this.nc.jetstream().views.os(homeworkBucket(this.prefix));
      this.store.catch(() => {
        this.store = null;
      });
    }
    return this.store;
  }

  /** Size and SHA-256 (hex) of a stored object; null when there is none. */
  async info(object: string): Promise<{ size: number; sha256: string } | null> {
    const info = await (await this.bucket()).info(object);
    if (!info || info.deleted) return null;
    return { size: info.size, sha256: digestHex(info.digest) };
  }

  /** Every stored object's name and when it was stored. */
  async list(): Promise<Array<{ name: string; at: number }>> {
    const os = await this.bucket();
    return (await os.list()).filter((o) => !o.deleted).map((o) => ({ name: o.name, at: Date.parse(o.mtime) }));
  }

  /** Removes objects that were staged for a refused submission (best effort: a failure leaves an orphan, not a record). */
  async discard(objects: string[]): Promise<void> {
    const os = await this.bucket().catch(() => null);
    if (!os) return;
    await Promise.all(objects.map((o) => os.delete(o).catch(() => {})));
  }
}

/** The object store's digest (`SHA-256=<base64url>`) as hex. */
export function digestHex(digest: string): string {
  const b64 = digest.replace(/^SHA-256=/, '');
  return Buffer.from(b64, 'base64url').toString('hex');
}
