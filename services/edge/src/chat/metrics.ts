import { Counter, Histogram, type Registry } from 'prom-client';

/** The edge's metrics of the AI chat. */
export interface ChatEdgeMetrics {
  streams: Counter<'outcome'>;
  requests: Counter<'route' | 'status'>;
  firstToken: Histogram;
  overhead: Histogram;
}

const FAST = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export function createChatEdgeMetrics(registry: Registry): ChatEdgeMetrics {
  return {
    streams: new Counter({
      name: 'studium_ai_chat_streams_total',
      help: 'Answer streams by how they ended: done, error (the service said why), stalled (the service went silent), lost (a frame went missing), client_gone',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    requests: new Counter({
      name: 'studium_ai_chat_requests_total',
      help: 'Requests of the chat API by route and HTTP status (a stream counts 200 when it starts)',
      labelNames: ['route', 'status'],
      registers: [registry],
    }),
    firstToken: new Histogram({
      name: 'studium_ai_chat_first_token_seconds',
      help: "The platform's time to first token: from the request at the edge to the first piece of the answer written to the client (the provider's time included)",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      registers: [registry],
    }),
    overhead: new Histogram({
      name: 'studium_ai_chat_platform_overhead_seconds',
      help: "What the platform adds to the first token: the edge's time to first token minus the provider's, as ai-chat measured it",
      buckets: FAST,
      registers: [registry],
    }),
  };
}
