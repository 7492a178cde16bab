import {
  type AccessChanged,
  type CourseAccess,
  courseAccess,
  courseAccessFromDoc,
  type Principal,
  type Reply,
} from '@studium/contracts';
import { type Kysely, sql } from 'kysely';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import type { Bus } from './bus.ts';
import { startEventConsumer } from './consumer.ts';
import { streamNames } from './events.ts';
import type { Logger } from './log.ts';
import type { RunningConsumer } from './supervisor.ts';

/**
 * A service's local copy of enrollment's access documents (`evt.enrollment.access_changed`),
 * in its own tables `access_students` and `access_projection` (each service's migration
 * creates them), and the course access check decided from it:
 * - a grant without a program lock is decided locally: no request to enrollment;
 * - anything else (a refusal, a program lock, a student without a document, a projection
 *   not caught up yet) is asked of enrollment.course_access, whose answer is returned.
 * So a projection up to one event late can only grant what was revoked within that lag, never
 * refuse what was just granted (an enroll followed at once by start_lesson); docs/decisions.md.
 * A fresh projection fills itself by replaying the stream from its start (it keeps every event,
 * and enrollment announces every user once); until the durable had nothing pending once, every
 * check asks enrollment.
 */
export class AccessProjection {
  private caughtUp = false;
  private consumer: RunningConsumer | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly opts: {
      nc: NatsConnection;
      bus: Bus;
      /** The service's own database, with `access_students` and `access_projection`. */
      db: Kysely<unknown>;
      durable: string;
      log: Logger;
      metrics?: Registry;
      maxAttempts?: number;
      retryDelayMs?: number;
      /** How often a projection not caught up yet asks JetStream whether it is (default 200 ms). */
      pollMs?: number;
    },
  ) {}

  /** Starts the consumer and, unless the projection was caught up before, the catch-up watch. */
  async start(): Promise<void> {
    const db = this.opts.db as Kysely<AccessTables>;
    this.consumer = await startEventConsumer({
      nc: this.opts.nc,
      prefix: this.opts.bus.prefix,
      durable: this.opts.durable,
      db,
      log: this.opts.log,
      metrics: this.opts.metrics,
      maxAttempts: this.opts.maxAttempts,
      retryDelayMs: this.opts.retryDelayMs,
      on: {
        // State transfer: the highest version is the latest state (enrollment bumps it under the
        // user's row lock), so redeliveries and reordering change nothing.
        async 'enrollment.access_changed'(trx, doc) {
          await sql`insert into access_students (user_id, version, doc)
            values (${doc.user}, ${doc.version}, ${JSON.stringify(doc)}::jsonb)
            on conflict (user_id) do update set version = excluded.version, doc = excluded.doc
            where access_students.version < excluded.version`.execute(trx);
        },
      },
    });
    const { rows } = await sql<{ ready_at: string }>`select ready_at from access_projection`.execute(db);
    this.caughtUp = rows.length > 0;
    if (!this.caughtUp) this.watch();
  }

  /** True once the projection had replayed everything the stream held at some point. */
  get ready(): boolean {
    return this.caughtUp;
  }

  private watch(): void {
    const names = streamNames(this.opts.bus.prefix);
    const tick = async () => {
      try {
        const jsm = await this.opts.nc.jetstreamManager();
        const info = await jsm.consumers.info(names.stream, this.opts.durable);
        if (info.num_pending === 0 && info.num_ack_pending === 0) {
          await sql`insert into access_projection (id) values (1) on conflict do nothing`.execute(this.opts.db);
          this.caughtUp = true;
          this.opts.log.info({ durable: this.opts.durable }, 'access projection caught up');
          return;
        }
      } catch (err) {
        this.opts.log.warn({ err, durable: this.opts.durable }, 'access projection: catch-up check failed');
      }
      this.timer = setTimeout(tick, this.opts.pollMs ?? 200);
      this.timer.unref();
    };
    void tick();
  }

  /** The student's document; undefined without one. */
  async doc(user: string): Promise<AccessChanged | undefined> {
    const { rows } = await sql<{ doc: AccessChanged }>`select doc from access_students where user_id = ${user}`.execute(
      this.opts.db,
    );
    return rows[0]?.doc;
  }

  /**
   * The access check of a course tool: local for a plain grant, enrollment.course_access otherwise.
   * `known` is the caller's document as the tool's own statement already read it (the session's
   * read selects `access_students.doc` with the session, so a session tool makes no extra round
   * trip): null when there is none; leave it out to read it here.
   */
  async check(
    principal: Principal,
    q: { course: string; space: string | null; course_space: string | null },
    known?: { doc: AccessChanged | null },
  ): Promise<Reply<CourseAccess>> {
    if (this.caughtUp) {
      const doc = known ? (known.doc ?? undefined) : await this.doc(principal.user);
      if (doc) {
        const local = courseAccessFromDoc(doc, q, Date.now());
        if (local.ok && local.data.program_previous === null) return local;
      }
    }
    // The student's signed principal goes along: enrollment answers only for the caller.
    return this.opts.bus.request(courseAccess, principal, { user: principal.user, ...q });
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.consumer?.stop();
  }
}

/** The projection's tables, as the services' migrations create them. */
interface AccessTables {
  access_students: { user_id: string; version: string; doc: unknown };
  access_projection: { id: number; ready_at: string };
}
