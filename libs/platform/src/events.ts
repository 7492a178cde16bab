import { EVENTS_STREAM } from '@studium/contracts';
import {
  AckPolicy,
  type ConsumerConfig,
  DeliverPolicy,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  nanos,
} from 'nats';

/**
 * How long JetStream waits for a consumer's ack before it redelivers to another replica: what a
 * killed consumer's events are late by. Short, so a second replica takes over within seconds; a
 * handler that runs longer says so with {@link keepWorking} instead of raising it.
 */
export const ACK_WAIT_MS = 3_000;

/**
 * Tells JetStream, every third of {@link ACK_WAIT_MS}, that the messages `held()` returns are
 * still being worked on (`+WPI`), so a long handler or a batch waiting its turn is not
 * redelivered to another replica meanwhile. Returns the function that stops it.
 */
export function keepWorking(held: () => Iterable<JsMsg>, ackWaitMs = ACK_WAIT_MS): () => void {
  const timer = setInterval(() => {
    for (const m of held()) m.working();
  }, ackWaitMs / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/** The envelope of every domain event on the stream. */
export interface EventEnvelope<T = unknown> {
  /** Unique per event; also the Nats-Msg-Id, so a republished event is dropped by the stream. */
  id: string;
  type: string;
  occurred_at: string;
  data: T;
  /** The W3C traceparent of the call that wrote it, when that call was traced: the publish continues its trace. */
  trace?: string;
}

/** Stream and subject names under a prefix. */
export function streamNames(prefix: string) {
  const p = prefix ? `${prefix}_` : '';
  return {
    stream: `${p}${EVENTS_STREAM}`.replace(/[^A-Za-z0-9_-]/g, '_'),
    subjects: prefix ? `${prefix}.evt.>` : 'evt.>',
    subject: (eventSubject: string) => (prefix ? `${prefix}.${eventSubject}` : eventSubject),
  };
}

/** Creates the events stream when missing (idempotent; every service that publishes or consumes calls it). */
export async function ensureStream(nc: NatsConnection, prefix: string): Promise<JetStreamManager> {
  const jsm = await nc.jetstreamManager();
  const names = streamNames(prefix);
  try {
    await jsm.streams.info(names.stream);
  } catch {
    await jsm.streams
      .add({ name: names.stream, subjects: [names.subjects], duplicate_window: nanos(10 * 60_000) })
      .catch(async (err) => {
        // A sibling created it first.
        await jsm.streams.info(names.stream).catch(() => Promise.reject(err));
      });
  }
  return jsm;
}

/** True when the server filters one consumer on several subjects (`filter_subjects`, NATS 2.10+). */
export function filtersManySubjects(nc: NatsConnection): boolean {
  const [major = 0, minor = 0] = (nc.info?.version ?? '0.0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 10);
}

/** NATS subject matching: `*` stands for one token, a final `>` for one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/**
 * The configuration every durable on the events stream shares: explicit acks, redelivered without
 * limit (the consumer parks what keeps failing), {@link ACK_WAIT_MS}; from the start of the stream.
 * `subjects` are full (prefixed) subjects; one is a `filter_subject`, several `filter_subjects`.
 */
export function durableConfig(durable: string, subjects: string[]): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ...(subjects.length === 1 ? { filter_subject: subjects[0] } : subjects.length ? { filter_subjects: subjects } : {}),
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: -1,
  };
}

/**
 * Creates or updates a durable pull consumer on the events stream. Returns false when the server
 * cannot filter on several subjects (`manyFilters` false, NATS < 2.10): the consumer then gets the
 * whole stream and must skip the other subjects itself. The platform's consumers do not take that
 * path (they read one durable per subject there, see `durablePlan`); reporting's batch consumer does.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  prefix: string,
  durable: string,
  filterSubjects: string[],
  manyFilters = true,
): Promise<boolean> {
  const names = streamNames(prefix);
  const subjects = filterSubjects.map(names.subject);
  const filtered = subjects.length === 1 || manyFilters;
  await jsm.consumers.add(names.stream, durableConfig(durable, filtered ? subjects : []));
  return filtered;
}
