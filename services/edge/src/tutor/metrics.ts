import { type Refusal, TUTOR_REFUSAL_STATUS } from '@studium/contracts';
import type { FastifyReply } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import { sendChatError } from '../chat/replies.ts';

/** The edge's metrics of the tutor. */
export interface TutorEdgeMetrics {
  streams: Counter<'outcome'>;
  requests: Counter<'route' | 'status'>;
  toolSeconds: Histogram;
}

export function createTutorEdgeMetrics(registry: Registry): TutorEdgeMetrics {
  return {
    streams: new Counter({
      name: 'studium_tutor_streams_total',
      help: 'Tutor turns by how they ended: done, error, stalled, lost, client_gone',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    requests: new Counter({
      name: 'studium_tutor_requests_total',
      help: 'Requests of the tutor API by route and HTTP status (a stream counts 200 when it starts)',
      labelNames: ['route', 'status'],
      registers: [registry],
    }),
    toolSeconds: new Histogram({
      name: 'studium_tutor_tool_seconds',
      help: "One of the tutor model's tool calls run by the edge for the student",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

/** Sends ai-chat's refusal of a tutor operation as its HTTP status. */
export function sendTutorRefusal(reply: FastifyReply, route: string, refusal: Refusal, metrics: TutorEdgeMetrics) {
  const { code, message, ...details } = refusal;
  const status = TUTOR_REFUSAL_STATUS[code as keyof typeof TUTOR_REFUSAL_STATUS] ?? 500;
  metrics.requests.labels(route, String(status)).inc();
  return sendChatError(reply, status, code, message, details);
}
