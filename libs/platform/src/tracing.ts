import {
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { MsgHdrs } from 'nats';

export { SpanKind, SpanStatusCode };

/**
 * The tracer every part of the platform records with. It asks the global provider on each span
 * (a lookup in a map) instead of keeping the first one it got, so that {@link setupTracing} can
 * replace the provider (tests switch exporters).
 */
export const tracer: Tracer = {
  startSpan: (...args: Parameters<Tracer['startSpan']>) => trace.getTracer('studium').startSpan(...args),
  startActiveSpan: ((...args: unknown[]) =>
    (trace.getTracer('studium').startActiveSpan as (...a: unknown[]) => unknown)(...args)) as Tracer['startActiveSpan'],
};

let provider: BasicTracerProvider | null = null;

/**
 * Whether this process exports spans (set by {@link setupTracing}). Every place that would open a
 * span checks it first: without an exporter nothing could be recorded, so no span object is made
 * and no context is entered for one; the caller's trace context still travels as it came.
 */
let exporting = false;

/** Whether spans are exported: false until {@link setupTracing} got an exporter or an endpoint. */
export function tracingExported(): boolean {
  return exporting;
}

/**
 * Sets up tracing for the process, once, before anything records. Spans are exported when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (OTLP over HTTP, batched), or to `exporter` (tests: an
 * in-memory one). Otherwise nothing is recorded, and only the edge's tool call opens a span: a
 * non-recording one that gives the call its trace id, which travels in `traceparent`, so log lines
 * of one call share it across services. The bus, the queries, the outbox relay and the consumers
 * open none ({@link tracingExported} is checked first).
 */
export async function setupTracing(
  service: string,
  opts: { exporter?: SpanExporter; env?: NodeJS.ProcessEnv } = {},
): Promise<BasicTracerProvider> {
  const env = opts.env ?? process.env;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  // Loaded only when exporting: the OTLP exporter costs about 120 ms of start-up to import.
  const otlp = endpoint && !opts.exporter ? await import('@opentelemetry/exporter-trace-otlp-http') : null;
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${endpoint?.replace(/\/$/, '')}/v1/traces`;
  const exporter = opts.exporter ?? (otlp ? new otlp.OTLPTraceExporter({ url }) : null);
  if (provider) {
    trace.disable();
    context.disable();
    propagation.disable();
  }
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? service }),
    // Off: ids only. On: a call is sampled where it starts (the edge) and followed downstream.
    sampler: exporter ? new ParentBasedSampler({ root: new AlwaysOnSampler() }) : new AlwaysOffSampler(),
    spanProcessors: exporter
      ? [opts.exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)]
      : [],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  exporting = exporter !== null;
  return provider;
}

/** Sends what is left and stops exporting (on shutdown). */
export async function stopTracing(): Promise<void> {
  await provider?.shutdown().catch(() => {});
}

/** Whether the active context is being recorded (a span worth adding children to). */
export function recording(): boolean {
  return exporting && trace.getSpan(context.active())?.isRecording() === true;
}

const setter: TextMapSetter<MsgHdrs> = { set: (h, k, v) => h.set(k, v) };
const getter: TextMapGetter<MsgHdrs | undefined> = {
  get: (h, k) => h?.get(k) || undefined,
  keys: (h) => (h ? [...h.keys()] : []),
};

/** Writes the active trace context (W3C `traceparent`) into NATS headers. */
export function injectTrace(h: MsgHdrs, ctx: Context = context.active()): void {
  propagation.inject(ctx, h, setter);
}

/** The trace context a NATS message carries (the root context when it carries none). */
export function extractTrace(h: MsgHdrs | undefined): Context {
  if (!h?.get('traceparent')) return context.active();
  return propagation.extract(context.active(), h, getter);
}

/** Runs `fn` in the trace context a NATS message carries; one that carries none runs as it is. */
export function withTraceOf<T>(h: MsgHdrs | undefined, fn: () => T): T {
  if (!h?.get('traceparent')) return fn();
  return context.with(propagation.extract(context.active(), h, getter), fn);
}

/** The active span's `traceparent`, when it is recorded: kept with an outbox event to continue its trace. */
export function traceparent(): string | undefined {
  if (!recording()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context of a stored `traceparent`. */
export function contextOf(parent: string | undefined): Context {
  return parent ? propagation.extract(context.active(), { traceparent: parent }) : context.active();
}

/** Ends a span with the error recorded. */
export function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** Ids of the active span for a log line; none outside a call. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * Runs a consumer's handling of one stream message in a CONSUMER span under the trace its
 * publisher sent (`traceparent`, set by the outbox relay for an event of a traced call); a message
 * without one is handled as it is, and without an exporter no span is made: the handling only
 * continues the publisher's context (its log lines carry its trace id).
 */
export function consumeTraced<T>(m: { subject: string; headers?: MsgHdrs }, fn: () => Promise<T>): Promise<T> {
  if (!m.headers?.get('traceparent')) return fn();
  if (!exporting) return withTraceOf(m.headers, fn);
  // The sampler decides from the publisher's flags (a remote parent is never "recording" here).
  return context.with(extractTrace(m.headers), () =>
    tracer.startActiveSpan(`${m.subject} consume`, { kind: SpanKind.CONSUMER }, async (span) => {
      try {
        return await fn();
      } catch (err) {
        failSpan(span, err);
        throw err;
      } finally {
        span.end();
      }
    }),
  );
}
