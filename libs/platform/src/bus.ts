import type { Operation, Principal, Reply, ServiceName, ToolContract } from '@studium/contracts';
import { ErrorCode, type NatsConnection, type NatsError, type Service, ServiceError, type ServiceMsg } from 'nats';
import type { z } from 'zod';
import type { Logger } from './log.ts';
import type { ReplyCache } from './reply-cache.ts';

/** Anything the bus can carry: a tool contract or an internal operation. */
type Contract = Pick<ToolContract | Operation, 'subject' | 'input' | 'output'>;
type In<C extends Contract> = z.infer<C['input']>;
type Out<C extends Contract> = z.infer<C['output']>;

/** What a handler receives besides its arguments. */
export interface CallContext {
  /** The caller; null for service-to-service operations that carry none. */
  principal: Principal | null;
  /** The ETag of the reply the caller holds (conditional request), or null. */
  ifNoneMatch: string | null;
}

/**
 * A reply with its ETag, or (reply null) the answer to a conditional request that the caller's
 * copy is still current. The ETag must change whenever the reply would: the handler owns it.
 */
export class Tagged<T = unknown> {
  constructor(
    readonly etag: string,
    readonly reply: Reply<T> | null,
  ) {}
}

/** A reply the caller may keep and revalidate with `etag` (see {@link Bus.request}'s cache). */
export function tagged<T>(etag: string, reply: Reply<T>): Tagged<T> {
  return new Tagged(etag, reply);
}

/** The caller's reply with this ETag is still current: nothing else crosses the bus. */
export function notModified(etag: string): Tagged<never> {
  return new Tagged<never>(etag, null);
}

/**
 * A handler answers with a reply value, or a tagged one (see {@link Tagged}); it throws only for
 * failures (see {@link Failure}).
 */
export type Handler<C extends Contract> = (args: In<C>, ctx: CallContext) => Promise<Reply<Out<C>> | Tagged<Out<C>>>;

/** A failure that is not a refusal: crosses the bus as a NATS service error with an HTTP-like status. */
export class Failure extends Error {
  constructor(
    readonly status: number,
    message = `failure ${status}`,
  ) {
    super(message);
    this.name = 'Failure';
  }
}

/** One endpoint of a service: a contract and its handler. */
export interface Endpoint {
  contract: Contract;
  handler: Handler<Contract>;
}

/** Pairs a contract with its handler, keeping the types tied together. */
export function endpoint<C extends Contract>(contract: C, handler: Handler<C>): Endpoint {
  return { contract, handler: handler as unknown as Handler<Contract> };
}

export interface BusOptions {
  /** Prepended to every subject (`<prefix>.<subject>`): isolates tests and deployments. */
  prefix: string;
  timeoutMs: number;
  log: Logger;
}

export interface Bus {
  readonly nc: NatsConnection;
  readonly prefix: string;
  /** The full subject on the wire for a contract subject. */
  subject(s: string): string;
  /** Serves endpoints as one NATS micro service; replicas share the load through its queue group. */
  serve(service: ServiceName, endpoints: Endpoint[]): Promise<Service>;
  /**
   * Sends a request and returns the reply; throws {@link Failure} on a service error, no
   * responders or timeout. With a `cache`, a reply that came tagged is kept under the caller's
   * user and selected space, the subject and the arguments, and the next same request carries its ETag: a service that finds
   * it current answers "not modified" in a few bytes and the kept reply is returned. The kept
   * reply is shared between calls and must not be mutated.
   */
  request<C extends Contract>(
    contract: C,
    principal: Principal | null,
    args: In<C>,
    opts?: { timeoutMs?: number; cache?: ReplyCache },
  ): Promise<Reply<Out<C>>>;
}

/**
 * The key of a kept reply: subject, user, the selected space (a default most list tools read) and
 * arguments. The service's ETag covers the rest of the principal.
 */
function cacheKey(subject: string, principal: Principal | null, args: unknown): string {
  return `${subject}\n${principal?.user ?? ''}\n${principal?.space ?? ''}\n${JSON.stringify(args ?? {})}`;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Creates the typed request/reply bus over one NATS connection. */
export function createBus(nc: NatsConnection, opts: BusOptions): Bus {
  const subject = (s: string) => (opts.prefix ? `${opts.prefix}.${s}` : s);

  async function answer(ep: Endpoint, msg: ServiceMsg): Promise<void> {
    let body: { principal?: Principal | null; args?: unknown; if_none_match?: unknown };
    try {
      body = JSON.parse(dec.decode(msg.data));
    } catch {
      msg.respondError(417, 'malformed request');
      return;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      msg.respondError(417, 'malformed request');
      return;
    }
    const parsed = ep.contract.input.safeParse(body.args ?? {});
    if (!parsed.success) {
      msg.respondError(417, `invalid arguments: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`);
      return;
    }
    try {
      const ifNoneMatch = typeof body.if_none_match === 'string' ? body.if_none_match : null;
      const reply = await ep.handler(parsed.data, { principal: body.principal ?? null, ifNoneMatch });
      const wire =
        reply instanceof Tagged
          ? reply.reply === null
            ? { ok: true, not_modified: true, etag: reply.etag }
            : { ...reply.reply, etag: reply.etag }
          : reply;
      msg.respond(enc.encode(JSON.stringify(wire)));
    } catch (err) {
      if (err instanceof Failure) {
        msg.respondError(err.status, err.message);
        return;
      }
      opts.log.error({ err, subject: msg.subject }, 'handler failed');
      msg.respondError(500, 'internal error');
    }
  }

  return {
    nc,
    prefix: opts.prefix,
    subject,
    async serve(service, endpoints) {
      const name = opts.prefix ? `${opts.prefix}-${service}` : service;
      const svc = await nc.services.add({ name: name.replace(/[^A-Za-z0-9_-]/g, '_'), version: '0.1.0' });
      for (const ep of endpoints) {
        svc.addEndpoint(ep.contract.subject.replace(/\./g, '_'), {
          subject: subject(ep.contract.subject),
          // The services API catches only synchronous throws: answer() never rejects.
          handler: (err: NatsError | null, msg: ServiceMsg) => {
            if (err) {
              opts.log.error({ err }, 'endpoint subscription error');
              return;
            }
            void answer(ep, msg);
          },
        });
      }
      // addEndpoint subscribes without waiting: once serve() resolves, requests from any connection must find the endpoints.
      await nc.flush();
      return svc;
    },
    async request(contract, principal, args, ropts) {
      const cache = ropts?.cache;
      const key = cache ? cacheKey(contract.subject, principal, args) : '';
      const held = cache?.get(key);
      const payload = enc.encode(JSON.stringify({ principal, args, if_none_match: held?.etag }));
      let msg: Awaited<ReturnType<NatsConnection['request']>>;
      try {
        msg = await nc.request(subject(contract.subject), payload, { timeout: ropts?.timeoutMs ?? opts.timeoutMs });
      } catch (err) {
        const code = (err as NatsError).code;
        if (code === ErrorCode.NoResponders) throw new Failure(503, `no responders on ${contract.subject}`);
        if (code === ErrorCode.Timeout) throw new Failure(504, `timeout on ${contract.subject}`);
        throw new Failure(503, `request failed on ${contract.subject}: ${(err as Error).message}`);
      }
      const se = ServiceError.toServiceError(msg);
      if (se) throw new Failure(se.code, se.message);
      const body = JSON.parse(dec.decode(msg.data));
      if (typeof body?.etag !== 'string') return body;
      if (body.not_modified === true) {
        if (!held || body.etag !== held.etag) {
          throw new Failure(502, `not_modified without a kept reply on ${contract.subject}`);
        }
        if (cache) cache.hits++;
        return held.reply as Reply<Out<typeof contract>>;
      }
      const { etag, ...reply } = body;
      if (cache) {
        cache.stored++;
        cache.set(key, { etag, reply, bytes: msg.data.byteLength });
      }
      return reply;
    },
  };
}
