// Issue 18.4: one tool call is one trace, from the edge through NATS to the service, its queries and
// its outbox publish; every log line of the call carries the trace id.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { COURSE_CARD_CHANGED } from '@studium/contracts';
import { createLogger, injectTrace, setupTracing, stopTracing, streamNames, tracer } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { headers } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, seedCards } from '../services/enrollment/test/support/cards.ts';
import { type AgentClient, connectAgent, data } from './support/clients.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

const exporter = new InMemorySpanExporter();
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let agent: AgentClient;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  await setupTracing('test', { exporter });
  const base = await createTestEnv('tracing');
  // One logger for both services, writing to memory: every line the call makes is read back.
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  env = { ...base, log: createLogger('tracing', 'debug', sink), cleanup: base.cleanup };
  enrollment = await startEnrollment(env);
  edge = await startEdge(env, {}, env.log);
  await enrollment.admin.upsertUser('student@test', 'Анна', ['Student']);
  await seedCards(env, enrollment.db, [card('trace-course')]);
  agent = await connectAgent('v2', `${edge.url}/mcp`, (await enrollment.admin.issueToken('student@test')).token);
});

afterAll(async () => {
  await agent?.close();
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
  trace.disable();
});

/** The spans of the trace whose root is the edge's span of `tool`. */
function traceOf(tool: string): { root: ReadableSpan; spans: ReadableSpan[] } {
  const spans = exporter.getFinishedSpans();
  const root = spans.find((s) => s.name === `tool ${tool}`);
  if (!root) throw new Error(`no span of ${tool}`);
  return { root, spans: spans.filter((s) => s.spanContext().traceId === root.spanContext().traceId) };
}

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('a tool call through the edge', () => {
  it('is one trace: the edge, the hop over NATS, the service and its queries', async () => {
    exporter.reset();
    expect(data(await agent.callTool('whoami', {}))).toMatchObject({ user: 'student@test' });
    const { root, spans } = await eventually(async () => traceOf('whoami'));
    expect(parentOf(root)).toBeUndefined();
    const hop = spans.find((s) => s.name === 'enrollment.whoami request');
    const served = spans.find((s) => s.name === 'enrollment.whoami');
    expect(parentOf(hop as ReadableSpan)).toBe(root.spanContext().spanId);
    expect(parentOf(served as ReadableSpan)).toBe(hop?.spanContext().spanId);
    const queries = spans.filter((s) => s.name.startsWith('pg ') && parentOf(s) === served?.spanContext().spanId);
    expect(queries.length).toBeGreaterThan(0);
    expect(queries[0]?.attributes['db.statement']).toEqual(expect.stringMatching(/select/i));
  });

  it('carries the trace id in every log line of the call, on both sides', async () => {
    lines.length = 0;
    exporter.reset();
    await agent.callTool('whoami', {});
    const traceId = (await eventually(async () => traceOf('whoami'))).root.spanContext().traceId;
    const edgeLine = lines.find((l) => l.msg === 'tool call' && l.tool === 'whoami');
    const serviceLine = lines.find((l) => l.msg === 'request handled' && l.subject === 'enrollment.whoami');
    expect(edgeLine?.trace_id).toBe(traceId);
    expect(serviceLine?.trace_id).toBe(traceId);
  });

  it('follows a write to its outbox publish', async () => {
    exporter.reset();
    expect(data(await agent.callTool('enroll', { course: 'trace-course' }))).toMatchObject({ course: 'trace-course' });
    const published = await eventually(async () => {
      const { spans } = traceOf('enroll');
      const p = spans.find((s) => s.name === 'evt.enrollment.enrolled publish');
      if (!p) throw new Error('not published yet');
      return { p, spans };
    });
    const served = published.spans.find((s) => s.name === 'enrollment.enroll');
    expect(parentOf(published.p)).toBe(served?.spanContext().spanId);
  });
});

describe('an event published in a traced call', () => {
  it('is consumed in a span of that trace', async () => {
    exporter.reset();
    const next = card('trace-course');
    await tracer.startActiveSpan('publisher', async (span) => {
      const h = headers();
      h.set('Nats-Msg-Id', randomUUID());
      injectTrace(h);
      const envelope = { id: randomUUID(), type: COURSE_CARD_CHANGED, occurred_at: next.at, data: next };
      // As courses' relay publishes it, with its own NATS user.
      await (await env.as('courses'))
        .jetstream()
        .publish(streamNames(env.prefix).subject(COURSE_CARD_CHANGED), JSON.stringify(envelope), { headers: h });
      span.end();
    });
    const publisher = exporter.getFinishedSpans().find((s) => s.name === 'publisher');
    const consumed = await eventually(async () => {
      const c = exporter.getFinishedSpans().find((s) => s.name === `${env.prefix}.${COURSE_CARD_CHANGED} consume`);
      if (!c) throw new Error('not consumed yet');
      return c;
    });
    expect(parentOf(consumed)).toBe(publisher?.spanContext().spanId);
    // The consumer's queries are spans of the same trace.
    expect(
      exporter
        .getFinishedSpans()
        .some((s) => s.name.startsWith('pg ') && parentOf(s) === consumed.spanContext().spanId),
    ).toBe(true);
  });
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports the spans over OTLP/HTTP', async () => {
    const bodies: string[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    try {
      const { port } = collector.address() as AddressInfo;
      await setupTracing('edge', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } });
      await agent.callTool('whoami', {});
      await stopTracing();
      const sent = bodies.join('\n');
      expect(sent).toContain('tool whoami');
      expect(sent).toContain('enrollment.whoami');
    } finally {
      collector.close();
    }
  });
});

describe('without an exporter (the default)', () => {
  it('records nothing, and log lines of one call still share a trace id', async () => {
    await setupTracing('test', { env: {} });
    exporter.reset();
    lines.length = 0;
    await agent.callTool('whoami', {});
    const edgeLine = lines.find((l) => l.msg === 'tool call');
    expect(exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === edgeLine?.trace_id)).toEqual([]);
    const serviceLine = lines.find((l) => l.msg === 'request handled' && l.subject === 'enrollment.whoami');
    expect(edgeLine?.trace_id).toEqual(expect.stringMatching(/^[0-9a-f]{32}$/));
    expect(serviceLine?.trace_id).toBe(edgeLine?.trace_id);
  });
});
