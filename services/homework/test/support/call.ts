import type { Principal, Refusal } from '@studium/contracts';
import type { TestEnv } from '@studium/testing';
import { expect } from 'vitest';
import type { z } from 'zod';

type Contract = { subject: string; input: z.ZodType; output: z.ZodType };

/** Calls a tool over NATS as the edge does; the data must fit the contract's output schema. */
export async function call<C extends Contract>(
  env: TestEnv,
  contract: C,
  principal: Principal | null,
  args: z.input<C['input']>,
): Promise<z.infer<C['output']>> {
  const reply = await env.bus.request(contract, principal, args as z.infer<C['input']>);
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.error)}`);
  return contract.output.parse(reply.data) as z.infer<C['output']>;
}

/** Calls and expects a refusal with this code; returns it. */
export async function refusal<C extends Contract>(
  env: TestEnv,
  contract: C,
  principal: Principal | null,
  args: z.input<C['input']>,
  code: string,
): Promise<Refusal & Record<string, unknown>> {
  const reply = await env.bus.request(contract, principal, args as z.infer<C['input']>);
  if (reply.ok) throw new Error(`expected ${code}, got ${JSON.stringify(reply.data)}`);
  expect(reply.error.code).toBe(code);
  return reply.error;
}
