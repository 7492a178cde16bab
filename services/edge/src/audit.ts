import type { Logger } from '@studium/platform';
import type { Kysely } from 'kysely';

/** Tables of the `edge` schema. */
export interface EdgeDb {
  audit_log: {
    kind: string;
    user_id: string | null;
    endpoint: string;
    tool: string | null;
    detail: string;
  };
}

/** One access violation. */
export interface Violation {
  kind: 'author_role_required' | 'write_with_read_token';
  user: string | null;
  endpoint: string;
  tool?: string;
  detail?: Record<string, unknown>;
}

/** Writes violations to the audit log table and to the log as a warning. */
export class AuditLog {
  constructor(
    private readonly db: Kysely<EdgeDb>,
    private readonly log: Logger,
  ) {}

  async record(v: Violation): Promise<void> {
    this.log.warn({ audit: v }, 'access violation');
    try {
      await this.db
        .insertInto('audit_log')
        .values({
          kind: v.kind,
          user_id: v.user,
          endpoint: v.endpoint,
          tool: v.tool ?? null,
          detail: JSON.stringify(v.detail ?? {}),
        })
        .execute();
    } catch (err) {
      this.log.error({ err, audit: v }, 'audit log write failed');
    }
  }
}
