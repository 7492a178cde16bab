import { EVENTS_STREAM } from '@studium/contracts';
import { AckPolicy, DeliverPolicy, type JetStreamManager, type NatsConnection, nanos } from 'nats';

/** The envelope of every domain event on the stream. */
export interface EventEnvelope<T = unknown> {
  /** Unique per event; also the Nats-Msg-Id, so a republished event is dropped by the stream. */
  id: string;
  type: string;
  occurred_at: string;
  data: T;
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

/** Creates or updates a durable pull consumer on the events stream. */
export async function ensureConsumer(
  jsm: JetStreamManager,
  prefix: string,
  durable: string,
  filterSubjects: string[],
): Promise<void> {
  const names = streamNames(prefix);
  await jsm.consumers.add(names.stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subjects: filterSubjects.map(names.subject),
    ack_wait: nanos(30_000),
    max_deliver: -1,
  });
}
