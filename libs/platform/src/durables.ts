import { createHash } from 'node:crypto';
import { type ConsumerInfo, DeliverPolicy, ErrorCode, type JetStreamManager, type NatsError, nanos } from 'nats';
import { durableConfig, streamNames } from './events.ts';

/**
 * How long a durable the consumer no longer reads (after a switch between one durable and one per
 * subject) may stay without a pull before the server deletes it. Long, so a replica of the
 * previous release that still reads it during a rolling update keeps it; it goes once none does.
 */
export const RETIRED_DURABLE_IDLE_MS = 60 * 60_000;

/** One durable of a consumer: its name, the event subjects it filters on, the durables it takes over from. */
export interface DurablePlan {
  name: string;
  /** Event subjects without prefix. */
  subjects: string[];
  /** Durables of the other mode: a new durable starts where they stopped, and they are retired. */
  replaces: string[];
}

/**
 * The durable of `durable` that reads only `subject` on a server without `filter_subjects`:
 * `<durable>--<subject, dots and wildcards made safe>-<8 hex of its hash>` (the hash keeps
 * `a.b_c` and `a_b.c` apart). Deterministic, so every replica shares it.
 */
export function subjectDurable(durable: string, subject: string): string {
  const readable = subject
    .replace(/\*/g, 'any')
    .replace(/>/g, 'all')
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(0, 100);
  const hash = createHash('sha256').update(subject).digest('hex').slice(0, 8);
  return `${durable}--${readable}-${hash}`;
}

/**
 * The durables a consumer of `subjects` reads: one (`filter_subject`, or `filter_subjects` on NATS
 * 2.10+, `manyFilters`), or on older servers one per subject, each with its single filter, so the
 * server never delivers an event of another subject. Each mode replaces the other's durables.
 */
export function durablePlan(durable: string, subjects: string[], manyFilters: boolean): DurablePlan[] {
  if (subjects.length <= 1 || manyFilters) {
    const parts = subjects.length > 1 ? subjects.map((s) => subjectDurable(durable, s)) : [];
    return [{ name: durable, subjects, replaces: parts }];
  }
  return subjects.map((s) => ({ name: subjectDurable(durable, s), subjects: [s], replaces: [durable] }));
}

/** What {@link ensureDurable} did. */
export interface Ensured {
  /** Set when it created the durable after the last stream sequence its predecessors had done. */
  startedAfter: number | null;
  created: boolean;
  /** Predecessors it marked for deletion once idle ({@link RETIRED_DURABLE_IDLE_MS}). */
  retired: string[];
  /** Predecessors it may not mark (the NATS permissions): the operator removes them. */
  kept: string[];
}

async function info(jsm: JetStreamManager, stream: string, name: string): Promise<ConsumerInfo | null> {
  try {
    return await jsm.consumers.info(stream, name);
  } catch (err) {
    if ((err as NatsError).api_error?.err_code === 10014) return null; // consumer not found
    throw err;
  }
}

/**
 * The stream sequence up to which every event of the durables in `names` is acknowledged (the
 * lowest of theirs), or null when none of them exists. A durable with nothing pending or
 * unacknowledged has done the stream up to its last sequence, read before its info so that an
 * event arriving in between is not counted as done.
 */
async function handedOver(jsm: JetStreamManager, stream: string, names: string[]): Promise<number | null> {
  if (!names.length) return null;
  const last = (await jsm.streams.info(stream)).state.last_seq;
  let floor: number | null = null;
  for (const name of names) {
    const c = await info(jsm, stream, name);
    if (!c) continue;
    const done = c.num_pending === 0 && c.num_ack_pending === 0 ? last : c.ack_floor.stream_seq;
    floor = floor === null ? done : Math.min(floor, done);
  }
  return floor;
}

/**
 * Creates or updates one durable of a plan on the events stream. A new durable starts after what
 * the durables it replaces acknowledged, so a switch between modes neither skips an event they
 * had pending nor replays the stream (processed marks older than the retention are gone, so a
 * replay could apply an event again); with no predecessor it starts at the stream's beginning.
 * An existing durable keeps its start (the server refuses to change it). Predecessors get an
 * inactivity threshold: the server deletes them once nobody has pulled them for
 * {@link RETIRED_DURABLE_IDLE_MS}.
 */
export async function ensureDurable(jsm: JetStreamManager, prefix: string, plan: DurablePlan): Promise<Ensured> {
  const names = streamNames(prefix);
  const config = durableConfig(plan.name, plan.subjects.map(names.subject));
  let existing = await info(jsm, names.stream, plan.name);
  let startedAfter: number | null = null;
  if (!existing) {
    startedAfter = await handedOver(jsm, names.stream, plan.replaces);
    const start = startedAfter
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startedAfter + 1 }
      : { deliver_policy: DeliverPolicy.All };
    try {
      await jsm.consumers.add(names.stream, { ...config, ...start });
    } catch (err) {
      // A sibling replica created it first (with its own start): update that one below.
      existing = await info(jsm, names.stream, plan.name);
      if (!existing) throw err;
      startedAfter = null;
    }
  }
  if (existing) {
    const { deliver_policy, opt_start_seq, opt_start_time } = existing.config;
    await jsm.consumers.add(names.stream, { ...config, deliver_policy, opt_start_seq, opt_start_time });
  }
  const retired: string[] = [];
  const kept: string[] = [];
  for (const name of plan.replaces) {
    const old = await info(jsm, names.stream, name);
    if (!old || old.config.inactive_threshold) continue;
    try {
      await jsm.consumers.update(names.stream, name, { inactive_threshold: nanos(RETIRED_DURABLE_IDLE_MS) });
      retired.push(name);
    } catch (err) {
      // Under the deployment's NATS users a service may touch only its own durables, one per
      // event (scripts/nats-auth.ts): a predecessor stays, unread, for the operator to delete.
      if ((err as NatsError).code !== ErrorCode.PermissionsViolation) throw err;
      kept.push(name);
    }
  }
  return { startedAfter, created: !existing, retired, kept };
}
