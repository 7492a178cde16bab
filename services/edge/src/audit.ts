import type { Logger } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { RateLimiter } from './rate-limit.ts';

/** Tables of the `edge` schema. */
export interface EdgeDb {
  audit_log: {
    kind: string;
    user_id: string | null;
    endpoint: string;
    tool: string | null;
    detail: string;
  };
  oauth_store: {
    kind: string;
    id: string;
    payload: unknown;
    grant_id: string | null;
    uid: string | null;
    user_code: string | null;
    account_id: string | null;
    expires_at: string | null;
    /** Grant rows: when one of its access tokens was last used (migration 0004). */
    last_used_at?: string | null;
  };
  oauth_keys: { id: number; jwks: unknown; cookie_keys: unknown };
}

/** One access violation. */
export interface Violation {
  kind:
    | 'author_role_required'
    | 'access_denied'
    | 'write_with_read_token'
    | 'oauth_grant'
    | 'oauth_revocation'
    | 'oauth_login_failed'
    | 'web_login_failed'
    | 'web_csrf_refused';
  user: string | null;
  endpoint: string;
  tool?: string;
  detail?: Record<string, unknown>;
}

/**
 * Writes violations to the audit log table and to the log as a warning. With a limiter, each user's
 * violations of one kind are written at most its limit per minute (counted across replicas): a
 * flood from one token cannot fill the table or the log; the rest are only counted.
 */
export class AuditLog {
  /** Violations not written because their user was over the limit. */
  suppressed = 0;

  constructor(
    private readonly db: Kysely<EdgeDb>,
    private readonly log: Logger,
    private readonly limiter?: RateLimiter,
  ) {}

  async record(v: Violation): Promise<void> {
    if (this.limiter && !(await this.limiter.check(`${v.kind}:${v.user ?? '-'}`)).allowed) {
      this.suppressed++;
      return;
    }
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
