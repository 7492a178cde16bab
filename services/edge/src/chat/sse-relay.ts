import { type Bus, FRAMES_SUBJECT, onceSubject } from '@studium/platform';
import type { FastifyReply } from 'fastify';
import type { Subscription } from 'nats';
import type { Counter } from 'prom-client';

const enc = new TextEncoder();

/** Timing of the relay between ai-chat and the client. */
export interface RelayTiming {
  /** How often the edge tells ai-chat the client is still there. */
  aliveMs: number;
  /** Silence from ai-chat (no piece, no heartbeat) after which the client gets an `error` event. */
  stallMs: number;
  /** SSE comment interval that keeps proxies from closing an idle stream. */
  keepAliveMs: number;
}

/** An open Server-Sent Events stream that relays one ai-chat answer or tutor turn. */
export interface RelayStream {
  /** Writes one SSE event (nothing once the stream has ended). */
  event(e: Record<string, unknown>): void;
  /** Ends the stream once: stops the timers and the subscription, counts the outcome, writes `last`. */
  finish(outcome: string, last?: Record<string, unknown>[]): void;
  /**
   * Takes a frame's sequence number: true when it is the next one (and ai-chat was heard); a gap
   * or an undecodable frame (undefined) ends the stream as `lost`.
   */
  inOrder(seq: number | undefined): boolean;
  /** ai-chat was heard from (resets the stall watch). */
  heard(): void;
  readonly finished: boolean;
}

/** Where ai-chat sends an answer's or a turn's frames, subscribed before it is asked to start. */
export interface FrameInbox {
  /** The subject to name in the start request. */
  subject: string;
  sub: Subscription;
  /** Hands every frame to `onFrame`: first the ones that came before, in order, then each as it comes. */
  listen(onFrame: (data: Uint8Array) => void): void;
}

/**
 * A new frames subject of this answer alone (`edge.frames.<token>`, unguessable and never reused:
 * ai-chat may publish there, and nowhere under the edge's `_INBOX_edge.>`, where the replies to the
 * edge's requests arrive), subscribed at once so that no frame is missed; frames wait until the
 * stream is open and {@link FrameInbox.listen} is called.
 */
export function frameInbox(bus: Bus): FrameInbox {
  const subject = onceSubject(bus.prefix, FRAMES_SUBJECT);
  const pending: Uint8Array[] = [];
  let onFrame: ((data: Uint8Array) => void) | null = null;
  const sub = bus.nc.subscribe(subject, {
    callback: (_err, msg) => (onFrame ? onFrame(msg.data) : pending.push(msg.data)),
  });
  return {
    subject,
    sub,
    listen(fn) {
      onFrame = fn;
      for (const data of pending.splice(0)) fn(data);
    },
  };
}

/**
 * Opens the SSE response of a relay and keeps it honest for both the teachers' chat and the tutor:
 * ai-chat is told every `aliveMs` that the client is there, a silence longer than `stallMs` (unless
 * `quiet()` says it is expected) ends the stream with `stalled`, SSE comments keep proxies from
 * closing it, and a client that leaves (or left while ai-chat was accepting) cancels the work.
 */
export function openRelayStream(opts: {
  reply: FastifyReply;
  bus: Bus;
  /** ai-chat's control subject for this answer or turn. */
  control: string;
  sub: Subscription;
  timing: RelayTiming;
  streams: Counter<'outcome'>;
  stalled: string;
  lost: string;
  /** True while silence from ai-chat is expected (the edge itself is working for it). */
  quiet?: () => boolean;
}): RelayStream {
  const { reply, timing } = opts;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  const tell = (type: 'alive' | 'cancel') => opts.bus.nc.publish(opts.control, enc.encode(JSON.stringify({ type })));
  let expected = 1;
  let lastHeard = Date.now();
  let finished = false;
  const event = (e: Record<string, unknown>) => {
    if (!res.writableEnded) res.write(`data: ${JSON.stringify(e)}\n\n`);
  };
  const finish = (outcome: string, last?: Record<string, unknown>[]) => {
    if (finished) return;
    finished = true;
    clearInterval(alive);
    clearInterval(watch);
    clearInterval(keepAlive);
    opts.sub.unsubscribe();
    opts.streams.labels(outcome).inc();
    if (outcome === 'client_gone' || outcome === 'lost' || outcome === 'stalled') tell('cancel');
    for (const e of last ?? []) event(e);
    if (!res.writableEnded) res.end();
  };
  const alive = setInterval(() => tell('alive'), timing.aliveMs);
  const watch = setInterval(
    () => {
      if (!opts.quiet?.() && Date.now() - lastHeard > timing.stallMs) {
        finish('stalled', [{ type: 'error', content: opts.stalled }]);
      }
    },
    Math.min(500, timing.stallMs),
  );
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), timing.keepAliveMs);
  res.on('close', () => finish('client_gone'));
  res.on('error', () => finish('client_gone'));
  // The client may have left while ai-chat was accepting: then 'close' has already fired.
  if (res.destroyed || !res.socket || res.socket.destroyed) finish('client_gone');
  return {
    event,
    finish,
    inOrder(seq) {
      lastHeard = Date.now();
      if (seq === expected) {
        expected++;
        return true;
      }
      finish('lost', [{ type: 'error', content: opts.lost }]);
      return false;
    },
    heard() {
      lastHeard = Date.now();
    },
    get finished() {
      return finished;
    },
  };
}
