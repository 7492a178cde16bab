import { type Principal, publishRelease, type Refusal, type Release } from '@studium/contracts';
import { type EventEnvelope, streamNames } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import type { z } from 'zod';
import { curator, digestOf } from './fixtures.ts';

type Contract = { subject: string; input: z.ZodType; output: z.ZodType };

/** Calls a tool or operation over NATS and returns its data; a refusal fails the test. */
export async function call<C extends Contract>(
  env: TestEnv,
  contract: C,
  args: z.input<C['input']>,
  principal: Principal | null = curator,
): Promise<z.infer<C['output']>> {
  const reply = await env.bus.request(contract, principal, args as z.infer<C['input']>);
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.error)}`);
  // The reply must fit the contract's output schema, as the edge's outputSchema demands.
  return contract.output.parse(reply.data) as z.infer<C['output']>;
}

/** Calls and expects a refusal; returns it. */
export async function refusal<C extends Contract>(
  env: TestEnv,
  contract: C,
  args: z.input<C['input']>,
  principal: Principal | null = curator,
): Promise<Refusal & Record<string, unknown>> {
  const reply = await env.bus.request(contract, principal, args as z.infer<C['input']>);
  if (reply.ok) throw new Error(`expected a refusal, got ${JSON.stringify(reply.data)}`);
  return reply.error;
}

/** Publishes a release as the pipeline CLI does. */
export function publish(env: TestEnv, release: Release, extra: { commit?: string | null; attach_to?: string } = {}) {
  return call(env, publishRelease, {
    release: release as unknown as Record<string, unknown>,
    digest: digestOf(release),
    commit: extra.commit ?? null,
    publisher: 'curator@test',
    ...(extra.attach_to ? { attach_to: extra.attach_to } : {}),
  });
}

/** Every event on this test's JetStream stream (optionally of one subject), in stream order. */
export async function streamEvents(env: TestEnv, subject?: string): Promise<EventEnvelope<Record<string, unknown>>[]> {
  const jsm = await (await env.as('operator')).jetstreamManager();
  const names = streamNames(env.prefix);
  const { state } = await jsm.streams.info(names.stream);
  const out: EventEnvelope<Record<string, unknown>>[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(names.stream, { seq });
    if (subject && m.subject !== names.subject(subject)) continue;
    out.push(m.json());
  }
  return out;
}

/** The latest course_card_changed of a course on the stream. */
export async function latestCard(env: TestEnv, course: string) {
  const cards = (await streamEvents(env, 'evt.courses.course_card_changed')).filter((e) => e.data.course === course);
  return cards.at(-1)?.data;
}
