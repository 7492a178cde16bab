// The trust model's second round, item 2: each NATS user reads only the events its consumers
// take, through its own durables, and touches no other service's. On this file's nats-server with
// the deployment's users (scripts/nats-auth.ts), every service creates and reads its own durables
// as it does when it starts, then tries what the outside review did: another event's subject, an
// ephemeral consumer, another service's durable (info, pull, delete, re-create), a direct get of
// a stored event, a listing, and its own durable widened to another subject.
import { events } from '@studium/contracts';
import { durablePlan, ensureConsumer, ensureDurable, ensureStream, streamNames } from '@studium/platform';
import { createTestEnv, type NatsUser, type TestEnv } from '@studium/testing';
import { AckPolicy, DeliverPolicy, type JetStreamManager, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, NATS_USERS } from '../scripts/nats-auth.ts';

let env: TestEnv;
let stream: string;
const conns = new Map<NatsUser, { nc: NatsConnection; jsm: JetStreamManager }>();
const enc = new TextEncoder();

/** Every name a user's durables have (one per event), with their wire filter. */
function ownDurables(user: NatsUser): Array<{ name: string; filter: string | null }> {
  const names = streamNames(env.prefix);
  return (CONSUMERS[user] ?? []).flatMap(
    (c): Array<{ name: string; filter: string | null }> =>
      c.events === 'body-filtered'
        ? [{ name: c.durable, filter: null }]
        : durablePlan(
            c.durable,
            c.events.map((e) => events[e].subject),
            false,
          ).map((p) => ({ name: p.name, filter: names.subject(p.subjects[0] as string) })),
  );
}

/** Rejected by nats-server as a permissions violation (never answered, never done). */
async function denied(work: Promise<unknown>): Promise<void> {
  await expect(work).rejects.toThrow(/permission/i);
}

const SERVICE_USERS = NATS_USERS.filter((u) => u !== 'operator');

beforeAll(async () => {
  env = await createTestEnv('leastpriv');
  stream = streamNames(env.prefix).stream;
  for (const user of SERVICE_USERS) {
    const nc = await env.connectAs(user);
    conns.set(user, { nc, jsm: await nc.jetstreamManager({ timeout: 3000 }) });
  }
  // The stream, and one stored event anyone might want: a user's login and full name.
  await ensureStream((await env.as('operator')) as NatsConnection, env.prefix);
  const js = (conns.get('enrollment') as { nc: NatsConnection }).nc.jetstream();
  await js.publish(
    `${env.prefix}.${events['enrollment.user_created'].subject}`,
    enc.encode(JSON.stringify({ id: 'e1', type: events['enrollment.user_created'].subject, data: { user: 'anna' } })),
  );
});

afterAll(async () => {
  await env?.cleanup();
});

describe('each NATS user on the events stream', () => {
  it('creates, reads and acknowledges its own durables, each with the events its consumers take', async () => {
    for (const [user, consumers] of Object.entries(CONSUMERS) as [NatsUser, (typeof CONSUMERS)[NatsUser]][]) {
      const { nc, jsm } = conns.get(user) as { nc: NatsConnection; jsm: JetStreamManager };
      for (const c of consumers ?? []) {
        if (c.events === 'body-filtered') {
          await ensureConsumer(jsm, env.prefix, c.durable, ['evt.lessons.lesson_passed'], false);
          continue;
        }
        for (const plan of durablePlan(
          c.durable,
          c.events.map((e) => events[e].subject),
          false,
        ))
          await ensureDurable(jsm, env.prefix, plan);
      }
      for (const { name } of ownDurables(user)) {
        expect((await jsm.consumers.info(stream, name)).name).toBe(name);
        const consumer = await nc.jetstream().consumers.get(stream, name);
        for await (const m of await consumer.fetch({ max_messages: 10, expires: 1000 })) m.ack();
      }
    }
    // reporting's durable, unfiltered on this server (NATS 2.9), pulled the stored event above.
    const reporting = conns.get('reporting') as { jsm: JetStreamManager };
    expect((await reporting.jsm.consumers.info(stream, 'reporting-read-models')).delivered.stream_seq).toBe(1);
    expect(await env.violations()).toEqual([]);
  });

  it.each(SERVICE_USERS)('%s may not read events any other way, nor touch another service’s durable', async (user) => {
    const { jsm } = conns.get(user) as { jsm: JetStreamManager };
    const names = streamNames(env.prefix);
    const userCreated = names.subject(events['enrollment.user_created'].subject);
    // An ephemeral consumer of another subject (the review read logins and full names so).
    await denied(
      jsm.consumers.add(stream, {
        ack_policy: AckPolicy.None,
        deliver_policy: DeliverPolicy.All,
        filter_subject: userCreated,
      }),
    );
    // Stored messages directly, and the list of consumers.
    await denied(jsm.streams.getMessage(stream, { seq: 1 }));
    await denied(jsm.consumers.list(stream).next());
    for (const [other, consumers] of Object.entries(CONSUMERS) as [NatsUser, unknown][]) {
      if (other === user || !consumers) continue;
      for (const { name, filter } of ownDurables(other)) {
        await denied(jsm.consumers.info(stream, name));
        await denied(jsm.consumers.delete(stream, name));
        // Re-created under this user, with the other's own filter.
        await denied(
          jsm.consumers.add(stream, {
            durable_name: name,
            ack_policy: AckPolicy.Explicit,
            ...(filter ? { filter_subject: filter } : {}),
          }),
        );
      }
    }
    // Its own durables, widened to another event: the filter is pinned in the request subject.
    for (const { name, filter } of ownDurables(user)) {
      if (!filter) continue;
      await denied(
        jsm.consumers.add(stream, { durable_name: name, ack_policy: AckPolicy.Explicit, filter_subject: userCreated }),
      );
      await denied(jsm.consumers.delete(stream, name));
    }
  });
});
