import { trace } from '@opentelemetry/api';
import type { Operation, Principal, Reply, ServiceName, ToolContract } from '@studium/contracts';
import {
  ErrorCode,
  headers,
  type NatsConnection,
  type NatsError,
  type Service,
  ServiceError,
  type ServiceMsg,
} from 'nats';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import { type BusTrust, callerOf, SignedTokens, tokenFor } from './bus-trust.ts';
import { ConcurrencyLimit } from './limiter.ts';
import type { Logger } from './log.ts';
import { type PlatformMetrics, platformMetrics } from './metrics.ts';
import { PRINCIPAL_HEADER } from './principal-token.ts';
import { unpredictableToken } from './random-tokens.ts';
import type { ReplyCache } from './reply-cache.ts';
import { REPLY_NONCE, REPLY_NONCE_HEADER, REPLY_SIGNATURE_HEADER } from './reply-signature.ts';
import { failSpan, injectTrace, recording, SpanKind, tracer, tracingExported, withTraceOf } from './tracing.ts';

/**
 * Header with the caller's deadline (epoch milliseconds): when the caller stops waiting. The
 * service drops a request already past it and aborts {@link CallContext.signal} when it passes.
 * Hosts are expected to keep their clocks in sync (NTP); a skew shortens or lengthens the budget.
 */
export const DEADLINE_HEADER = 'Studium-Deadline';

/** Anything the bus can carry: a tool contract or an internal operation. */
type Contract = Pick<ToolContract | Operation, 'subject' | 'input' | 'output'> & { signedReply?: true };
type In<C extends Contract> = z.infer<C['input']>;
type Out<C extends Contract> = z.infer<C['output']>;

/** What a handler receives besides its arguments. */
export interface CallContext {
  /** The caller; null for service-to-service operations that carry none. */
  principal: Principal | null;
  /** The ETag of the reply the caller holds (conditional request), or null. */
  ifNoneMatch: string | null;
  /**
   * Aborted when the caller's deadline passes (it no longer waits for the answer): long handlers
   * check it between steps and stop. Never aborted for a request without a deadline.
   */
  signal?: AbortSignal;
  /** The caller's deadline (epoch ms), or null when the request carried none. */
  deadline?: number | null;
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

/**
 * Throws a 504 {@link Failure} once the caller's deadline has passed. A handler calls it between
 * steps, and in a write's transaction right before it commits, to stop (and roll back) work
 * nobody waits for any more.
 */
export function checkDeadline(ctx: Pick<CallContext, 'signal'>): void {
  if (ctx.signal?.aborted) throw new Failure(504, 'deadline passed');
}

/**
 * For an internal operation that names the user it acts for in its arguments: when the request
 * carries the caller's signed principal (passed on by the service that asks), it must be that
 * user's, or the request is a 403, so a service cannot ask for another user than its caller's.
 * A request without a principal (a job, the operator's scripts) is left to the NATS permissions.
 */
export function checkActsFor(ctx: Pick<CallContext, 'principal'>, user: string): void {
  if (ctx.principal && ctx.principal.user !== user) throw new Failure(403, 'acts for another user than its caller');
}

/**
 * For an internal operation that only ever runs inside a user's call (an access check, a lesson's
 * progress): the request must carry that user's signed principal, passed on by the service that
 * asks ({@link checkActsFor}); without one it is a 401, so even a process allowed on the subject
 * cannot ask it for an arbitrary user.
 */
export function requireActsFor(ctx: Pick<CallContext, 'principal'>, user: string): void {
  if (!ctx.principal) throw new Failure(401, 'unsigned');
  checkActsFor(ctx, user);
}

/** One endpoint of a service: a contract and its handler. */
export interface Endpoint {
  contract: Contract;
  handler: Handler<Contract>;
  /**
   * Accepts a principal the edge signed for another subject, forwarded by the service that
   * received it (lessons asking enrollment's list_my_courses for the student of its call). Without
   * it, a token is accepted only on the subject it was signed for.
   */
  forwarded?: boolean;
}

/** Pairs a contract with its handler, keeping the types tied together. */
export function endpoint<C extends Contract>(
  contract: C,
  handler: Handler<C>,
  opts: { forwarded?: boolean } = {},
): Endpoint {
  return { contract, handler: handler as unknown as Handler<Contract>, ...opts };
}

export interface BusOptions {
  /** Prepended to every subject (`<prefix>.<subject>`): isolates tests and deployments. */
  prefix: string;
  timeoutMs: number;
  log: Logger;
  /**
   * Timeout of the first attempt of an idempotent request (see `idempotent` of {@link Bus.request});
   * the second attempt gets what is left of the whole timeout. Default 1000.
   */
  readAttemptTimeoutMs?: number;
  /** Requests one served service works on at once (default 64). */
  maxConcurrent?: number;
  /** Requests that may wait for a slot beyond that (default 256); more are refused with 503 at once. */
  maxQueued?: number;
  /** Registry for the bus metrics (retries, rejected and in-flight requests). */
  metrics?: Registry;
  /** Keys for signed principals; without a verifier every request with a principal is refused. */
  trust?: BusTrust;
  /**
   * In-process dispatch (`BUS_LOCAL`): endpoints this bus serves are also registered in the
   * process, and this bus's requests to an endpoint registered here by any local bus of the same
   * prefix skip NATS (see {@link LOCAL_ENDPOINTS}). Off by default: services in their own processes
   * gain nothing, and tests must cross the real bus.
   */
  local?: boolean;
}

/** What the bus did besides answering, for tests and diagnostics (the metrics carry the same). */
export interface BusStats {
  /** Idempotent requests sent a second time. */
  retries: number;
  /** Requests this bus's services refused because their queue was full. */
  overloaded: number;
  /** Requests this bus's services dropped because the caller's deadline had passed. */
  expired: number;
  /** Requests this bus's services refused because their principal was unsigned, forged or expired. */
  violations: number;
  /** Replies this bus refused because their signature did not verify (see `signedReply`). */
  forgedReplies: number;
}

export interface Bus {
  readonly nc: NatsConnection;
  readonly prefix: string;
  /** The full subject on the wire for a contract subject. */
  subject(s: string): string;
  /** Counters of retries and refused requests. */
  readonly stats: BusStats;
  /**
   * Serves endpoints as one NATS micro service; replicas share the load through its queue group.
   * At most `maxConcurrent` requests run at once (see {@link BusOptions}). The returned service's
   * `stop()` stops taking requests and resolves once every request taken has been answered.
   */
  serve(service: ServiceName, endpoints: Endpoint[]): Promise<Service>;
  /**
   * Sends a request and returns the reply; throws {@link Failure} on a service error, no
   * responders or timeout. With a `cache`, a reply that came tagged is kept under the caller's
   * user and selected space, the subject and the arguments, and the next same request carries its ETag: a service that finds
   * it current answers "not modified" in a few bytes and the kept reply is returned. The kept
   * reply is shared between calls and must not be mutated.
   *
   * Every request carries its deadline ({@link DEADLINE_HEADER}). An `idempotent` request (a
   * read-only tool) whose first attempt times out after `readAttemptTimeoutMs`, or that an
   * overloaded replica refuses (503 `overloaded`), is sent once more (the queue group picks a
   * replica; a crashed one has left it) with the rest of the timeout. Writes are never retried.
   *
   * A `principal` travels signed ({@link PRINCIPAL_HEADER}): the `ctx.principal` of a served call is
   * forwarded with the edge's token; any other principal is signed with the bus's signer for this
   * subject and deadline, and a bus without one (every service but the edge) throws.
   */
  request<C extends Contract>(
    contract: C,
    principal: Principal | null,
    args: In<C>,
    opts?: { timeoutMs?: number; cache?: ReplyCache; idempotent?: boolean },
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

/** A served request as the serving side sees it, whichever way it came. */
interface Incoming {
  subject: string;
  data: Uint8Array;
  /** The PRINCIPAL_HEADER token, or ''. */
  token: string;
  /** The caller's deadline (epoch ms), or null. */
  deadline: number | null;
  /** The REPLY_NONCE_HEADER the caller sent, or '' (needed for a `signedReply` operation). */
  nonce: string;
}

/**
 * How a served request ends: a reply's bytes (with their signature for a `signedReply`
 * operation), or an error status (a NATS service error on the wire).
 */
type Outcome = { data: Uint8Array; signature?: string } | { status: number; message: string };

/**
 * Endpoints served in this process by buses with `local` on, by wire subject (the prefix included).
 * A request of a `local` bus to one of them runs the same serving code as a request from NATS —
 * the principal's token verified for the endpoint, the arguments parsed from JSON, the service's
 * concurrency limit, the deadline, the reply encoded to JSON and decoded again by the caller —
 * without the two socket hops through nats-server. What keeps it equal to the wire: both paths go
 * through `serveRequest` and `attempt`'s reading of the outcome; only the transport differs, so
 * what nats-server itself enforces (each NATS user's publish permissions, max_payload) does not
 * apply in-process (docs/decisions.md).
 */
const LOCAL_ENDPOINTS = new Map<string, (req: Incoming) => Promise<Outcome>>();

/** Below this much time left after a failed first attempt, a second one is not worth sending. */
const MIN_RETRY_MS = 50;

/** Creates the typed request/reply bus over one NATS connection. */
export function createBus(nc: NatsConnection, opts: BusOptions): Bus {
  const subject = (s: string) => (opts.prefix ? `${opts.prefix}.${s}` : s);
  const stats: BusStats = { retries: 0, overloaded: 0, expired: 0, violations: 0, forgedReplies: 0 };
  const verifier = opts.trust?.verifier;
  const signer = opts.trust?.signer ? new SignedTokens(opts.trust.signer) : undefined;
  const metrics: PlatformMetrics | null = opts.metrics ? platformMetrics(opts.metrics) : null;
  const attemptTimeoutMs = opts.readAttemptTimeoutMs ?? 1000;

  const replySigner = opts.trust?.replySigner;
  const replyVerifier = opts.trust?.replyVerifier;
  const respond = (msg: ServiceMsg, data: Uint8Array, signature?: string) => {
    try {
      if (signature) {
        const h = headers();
        h.set(REPLY_SIGNATURE_HEADER, signature);
        msg.respond(data, { headers: h });
      } else msg.respond(data);
    } catch (err) {
      opts.log.warn({ err, subject: msg.subject }, 'reply not sent');
    }
  };
  const respondError = (msg: ServiceMsg, status: number, message: string) => {
    try {
      msg.respondError(status, message);
    } catch (err) {
      opts.log.warn({ err, subject: msg.subject }, 'error reply not sent');
    }
  };

  /** Answers a request from NATS with its outcome. */
  async function answer(service: string, limit: ConcurrencyLimit, ep: Endpoint, msg: ServiceMsg): Promise<void> {
    const header = Number(msg.headers?.get(DEADLINE_HEADER) || Number.NaN);
    const incoming: Incoming = {
      subject: msg.subject,
      data: msg.data,
      token: msg.headers?.get(PRINCIPAL_HEADER) ?? '',
      deadline: Number.isFinite(header) && header > 0 ? header : null,
      nonce: msg.headers?.get(REPLY_NONCE_HEADER) ?? '',
    };
    const outcome = await withTraceOf(msg.headers, () => serveRequest(service, limit, ep, incoming));
    if ('data' in outcome) respond(msg, outcome.data, outcome.signature);
    else respondError(msg, outcome.status, outcome.message);
  }

  /** One served request, from NATS or from a local bus: the deadline, the service's slot, then the handler. */
  async function serveRequest(service: string, limit: ConcurrencyLimit, ep: Endpoint, req: Incoming): Promise<Outcome> {
    const { deadline } = req;
    const expired = (reason: string): Outcome => {
      stats.expired++;
      metrics?.requestsRejected.labels(service, 'expired').inc();
      opts.log.debug({ subject: req.subject, reason }, 'request dropped: the caller no longer waits');
      return { status: 504, message: 'deadline passed' };
    };
    if (deadline !== null && deadline <= Date.now()) return expired('arrived late');
    const slot = await limit.acquire(deadline ?? Date.now() + opts.timeoutMs);
    if (slot === 'full') {
      stats.overloaded++;
      metrics?.requestsRejected.labels(service, 'overloaded').inc();
      return { status: 503, message: 'overloaded' };
    }
    if (slot === 'expired') return expired('waited for a slot');
    metrics?.requestsInFlight.labels(service).inc();
    const abort = new AbortController();
    const timer = deadline === null ? undefined : setTimeout(() => abort.abort(), deadline - Date.now());
    const began = performance.now();
    const run = async () => {
      try {
        return await handle(service, ep, req, { signal: abort.signal, deadline });
      } finally {
        opts.log.debug({ subject: ep.contract.subject, ms: performance.now() - began }, 'request handled');
      }
    };
    try {
      // The caller's trace context is the active one (extracted from the headers, or the local
      // caller's own); without an exporter the request runs in it as it is, with no span of its own.
      if (!tracingExported()) return await run();
      return await tracer.startActiveSpan(ep.contract.subject, { kind: SpanKind.SERVER }, async (span) => {
        try {
          return await run();
        } finally {
          span.end();
        }
      });
    } finally {
      clearTimeout(timer);
      metrics?.requestsInFlight.labels(service).dec();
      limit.release();
    }
  }

  async function handle(
    service: string,
    ep: Endpoint,
    req: Incoming,
    call: { signal: AbortSignal; deadline: number | null },
  ): Promise<Outcome> {
    let body: { principal?: Principal | null; args?: unknown; if_none_match?: unknown };
    try {
      body = JSON.parse(dec.decode(req.data));
    } catch {
      return { status: 417, message: 'malformed request' };
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return { status: 417, message: 'malformed request' };
    }
    const caller = callerOf(verifier, ep, req.token, body.principal);
    if (!caller.ok) {
      stats.violations++;
      metrics?.requestsRejected.labels(service, 'violation').inc();
      opts.log.warn(
        { violation: caller.reason, subject: req.subject },
        'request refused: its principal is not signed by the edge',
      );
      const status = caller.reason === 'unsigned' || caller.reason === 'expired' ? 401 : 403;
      trace.getActiveSpan()?.setAttributes({ 'studium.violation': caller.reason, 'studium.status': status });
      return { status, message: caller.reason };
    }
    // No nonce: a requester of the previous release, which checks nothing (served unsigned, so a
    // rolling update keeps working); a requester that checks always sends one and refuses an
    // unsigned reply. A nonce that is not one is refused.
    if (ep.contract.signedReply && req.nonce && !REPLY_NONCE.test(req.nonce)) {
      return { status: 400, message: 'bad reply nonce' };
    }
    if (ep.contract.signedReply && !replySigner) {
      opts.log.error({ subject: req.subject }, 'no reply key: this service cannot sign what it answers here');
      return { status: 500, message: 'no reply key' };
    }
    try {
      // Inside the try: a schema's own transform or refinement that throws is a 500, not a rejection.
      const parsed = ep.contract.input.safeParse(body.args ?? {});
      if (!parsed.success) {
        return {
          status: 417,
          message: `invalid arguments: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
        };
      }
      const ifNoneMatch = typeof body.if_none_match === 'string' ? body.if_none_match : null;
      const reply = await ep.handler(parsed.data, { principal: caller.principal, ifNoneMatch, ...call });
      const wire =
        reply instanceof Tagged
          ? reply.reply === null
            ? { ok: true, not_modified: true, etag: reply.etag }
            : { ...reply.reply, etag: reply.etag }
          : reply;
      if ('error' in wire && wire.error) trace.getActiveSpan()?.setAttribute('studium.refusal', wire.error.code);
      const data = enc.encode(JSON.stringify(wire));
      if (!ep.contract.signedReply || !replySigner || !req.nonce) return { data };
      return { data, signature: replySigner.sign(req.subject, req.nonce, data) };
    } catch (err) {
      if (err instanceof Failure) {
        trace.getActiveSpan()?.setAttribute('studium.status', err.status);
        return { status: err.status, message: err.message };
      }
      const span = trace.getActiveSpan();
      if (span) failSpan(span, err);
      opts.log.error({ err, subject: req.subject }, 'handler failed');
      return { status: 500, message: 'internal error' };
    }
  }

  /**
   * One attempt on the wire; a timeout or no responders become Failures. A `signedReply`
   * operation's attempt carries a nonce of its own, and its reply is returned only when its
   * signature verifies for this subject and nonce (a 502 otherwise, counted and logged).
   */
  async function attempt(
    contract: Contract,
    payload: Uint8Array,
    timeoutMs: number,
    token: string | null,
  ): Promise<{ data: Uint8Array }> {
    if (!contract.signedReply) return attemptOnce(contract, payload, timeoutMs, token, '');
    if (!replyVerifier) throw new Failure(500, `${contract.subject}: no key to check its signed reply`);
    const nonce = unpredictableToken();
    const reply = await attemptOnce(contract, payload, timeoutMs, token, nonce);
    const wire = subject(contract.subject);
    if (reply.signature && replyVerifier.verify(wire, nonce, reply.data, reply.signature)) return reply;
    stats.forgedReplies++;
    metrics?.forgedReplies.labels(contract.subject).inc();
    opts.log.error({ subject: contract.subject }, 'reply refused: not signed by the service asked');
    throw new Failure(502, `unsigned reply on ${contract.subject}`);
  }

  async function attemptOnce(
    contract: Contract,
    payload: Uint8Array,
    timeoutMs: number,
    token: string | null,
    nonce: string,
  ): Promise<{ data: Uint8Array; signature?: string }> {
    const local = opts.local ? LOCAL_ENDPOINTS.get(subject(contract.subject)) : undefined;
    if (local) return attemptLocal(local, contract, payload, timeoutMs, token, nonce);
    const h = headers();
    h.set(DEADLINE_HEADER, String(Date.now() + timeoutMs));
    if (token) h.set(PRINCIPAL_HEADER, token);
    if (nonce) h.set(REPLY_NONCE_HEADER, nonce);
    injectTrace(h);
    let msg: Awaited<ReturnType<NatsConnection['request']>>;
    try {
      msg = await nc.request(subject(contract.subject), payload, { timeout: timeoutMs, headers: h });
    } catch (err) {
      const code = (err as NatsError).code;
      if (code === ErrorCode.NoResponders) throw new Failure(503, `no responders on ${contract.subject}`);
      if (code === ErrorCode.Timeout) throw new Failure(504, `timeout on ${contract.subject}`);
      throw new Failure(503, `request failed on ${contract.subject}: ${(err as Error).message}`);
    }
    const se = ServiceError.toServiceError(msg);
    if (se) throw new Failure(se.code, se.message);
    return { data: msg.data, signature: msg.headers?.get(REPLY_SIGNATURE_HEADER) || undefined };
  }

  /** {@link attempt} served in this process: the same outcome, and a caller that waits no longer than on the wire. */
  async function attemptLocal(
    serve: (req: Incoming) => Promise<Outcome>,
    contract: Contract,
    payload: Uint8Array,
    timeoutMs: number,
    token: string | null,
    nonce: string,
  ): Promise<{ data: Uint8Array; signature?: string }> {
    const wire = subject(contract.subject);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Failure(504, `timeout on ${contract.subject}`)), timeoutMs);
    });
    const served = serve({ subject: wire, data: payload, token: token ?? '', deadline: Date.now() + timeoutMs, nonce });
    // Past the timeout nobody waits for it: a late rejection must not go unhandled.
    served.catch(() => {});
    try {
      const outcome = await Promise.race([served, late]);
      // As a NATS service error carries it: the header value trimmed, an empty one the status code.
      if ('status' in outcome) throw new Failure(outcome.status, outcome.message.trim() || String(outcome.status));
      return outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  const send: Bus['request'] = async (contract, principal, args, ropts) => {
    const cache = ropts?.cache;
    const key = cache ? cacheKey(contract.subject, principal, args) : '';
    const held = cache?.get(key);
    const payload = enc.encode(JSON.stringify({ args, if_none_match: held?.etag }));
    const deadline = Date.now() + (ropts?.timeoutMs ?? opts.timeoutMs);
    const token = principal ? tokenFor(signer, contract.subject, principal, deadline) : null;
    let msg: { data: Uint8Array };
    if (ropts?.idempotent) {
      try {
        msg = await attempt(contract, payload, Math.min(attemptTimeoutMs, deadline - Date.now()), token);
      } catch (err) {
        const retriable = err instanceof Failure && (err.status === 504 || err.message === 'overloaded');
        const left = deadline - Date.now();
        if (!retriable || left < MIN_RETRY_MS) throw err;
        stats.retries++;
        metrics?.requestRetries.labels(contract.subject).inc();
        opts.log.debug({ subject: contract.subject, err: (err as Error).message }, 'retrying a read');
        msg = await attempt(contract, payload, left, token);
      }
    } else {
      msg = await attempt(contract, payload, deadline - Date.now(), token);
    }
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
  };

  return {
    nc,
    prefix: opts.prefix,
    subject,
    stats,
    async serve(service, endpoints) {
      const name = opts.prefix ? `${opts.prefix}-${service}` : service;
      const svc = await nc.services.add({ name: name.replace(/[^A-Za-z0-9_-]/g, '_'), version: '0.1.0' });
      const limit = new ConcurrencyLimit(opts.maxConcurrent ?? 64, opts.maxQueued ?? 256);
      // This service's entries in LOCAL_ENDPOINTS (with `local` on).
      const registered = new Map<string, (req: Incoming) => Promise<Outcome>>();
      const unregister = () => {
        for (const [wire, serveHere] of registered)
          if (LOCAL_ENDPOINTS.get(wire) === serveHere) LOCAL_ENDPOINTS.delete(wire);
        registered.clear();
      };
      for (const ep of endpoints) {
        svc.addEndpoint(ep.contract.subject.replace(/\./g, '_'), {
          subject: subject(ep.contract.subject),
          // The services API catches only synchronous throws: answer() never rejects.
          handler: (err: NatsError | null, msg: ServiceMsg) => {
            if (err) {
              opts.log.error({ err }, 'endpoint subscription error');
              return;
            }
            void answer(service, limit, ep, msg);
          },
        });
      }
      // Stopping drains the subscriptions (requests already delivered still run); the answers
      // must go out before the caller drains the connection, or a rolling update loses them.
      const stopSubscriptions = svc.stop.bind(svc);
      svc.stop = async (err?: Error) => {
        unregister();
        const result = await stopSubscriptions(err);
        // A handler that never ends must not hold the shutdown forever.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([limit.idle(), new Promise((r) => (timer = setTimeout(r, opts.timeoutMs)))]);
        clearTimeout(timer);
        return result;
      };
      // addEndpoint subscribes without waiting: once serve() resolves, requests from any connection must find the endpoints.
      await nc.flush();
      // In-process callers find the endpoints only while the wire does: registered once they
      // serve, and gone when the service stops, also when nats.js stops it itself (its connection
      // closed, a subscription refused), which does not go through svc.stop.
      if (opts.local) {
        for (const ep of endpoints) {
          const serveHere = (req: Incoming) => serveRequest(service, limit, ep, req);
          registered.set(subject(ep.contract.subject), serveHere);
          LOCAL_ENDPOINTS.set(subject(ep.contract.subject), serveHere);
        }
        void svc.stopped.then(unregister, unregister);
      }
      return svc;
    },
    request(contract, principal, args, ropts) {
      // A recorded call gets a span for the hop; otherwise the caller's context still travels.
      if (!recording()) return send(contract, principal, args, ropts);
      return tracer.startActiveSpan(`${contract.subject} request`, { kind: SpanKind.CLIENT }, async (span) => {
        try {
          return await send(contract, principal, args, ropts);
        } catch (err) {
          if (err instanceof Failure) span.setAttribute('studium.status', err.status);
          else failSpan(span, err);
          throw err;
        } finally {
          span.end();
        }
      });
    },
  };
}
