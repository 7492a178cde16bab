import { chatStartAnswer, decodeChatFrame, type Principal } from '@studium/contracts';
import { type Bus, CONTROL_SUBJECT, isOnceSubject, type Logger } from '@studium/platform';
import type { FastifyReply } from 'fastify';
import type { ChatEdgeMetrics } from './metrics.ts';
import { sendChatError, sendRefusal } from './replies.ts';
import { frameInbox, openRelayStream, type RelayTiming } from './sse-relay.ts';

export interface RelayDeps {
  bus: Bus;
  log: Logger;
  metrics: ChatEdgeMetrics;
  timing: RelayTiming;
}

const STALLED =
  'ИИ-ассистент перестал отвечать, ответ прерван. Ваше сообщение сохранено в треде — отправьте вопрос ещё раз.';
const LOST =
  'Часть ответа потерялась по дороге, ответ прерван. Ваше сообщение сохранено в треде — отправьте вопрос ещё раз.';

/**
 * POST /v1/ai-chat/stream: asks ai-chat to start an answer and relays its frames as Server-Sent
 * Events (metadata, message_id, content…, then ai_message_id and done, or error). Refusals and an
 * unreachable service are HTTP errors before the stream; afterwards every failure is an `error`
 * event, including a service that went silent. A client that goes away cancels the answer.
 */
export async function relayAnswer(
  deps: RelayDeps,
  reply: FastifyReply,
  principal: Principal,
  args: { message: string; thread_id: string | null },
  startedAt: number,
): Promise<void> {
  const { bus, metrics, timing } = deps;
  // Subscribed before asking, so no frame is missed; frames wait until the stream is open.
  const inbox = frameInbox(bus);
  const { sub } = inbox;
  let accepted: Awaited<ReturnType<typeof bus.request<typeof chatStartAnswer>>>;
  try {
    accepted = await bus.request(chatStartAnswer, principal, { ...args, inbox: inbox.subject });
  } catch (err) {
    sub.unsubscribe();
    deps.log.warn({ err }, 'ai-chat did not accept the message');
    metrics.requests.labels('stream', '503').inc();
    return sendChatError(reply, 503, 'chat_unavailable', 'ИИ-чат сейчас недоступен, попробуйте позже');
  }
  if (!accepted.ok) {
    sub.unsubscribe();
    return sendRefusal(reply, 'stream', accepted.error, metrics);
  }
  const { thread_id, message_id, control } = accepted.data;
  // The edge publishes its controls only to an answer's own control subject: a control that
  // ai-chat names elsewhere (another service's subject, the object store's API) is refused.
  if (!isOnceSubject(bus.prefix, CONTROL_SUBJECT, control)) {
    sub.unsubscribe();
    deps.log.error({ control }, "ai-chat named a control subject that is not an answer's own");
    metrics.requests.labels('stream', '503').inc();
    return sendChatError(reply, 503, 'chat_unavailable', 'ИИ-чат сейчас недоступен, попробуйте позже');
  }
  metrics.requests.labels('stream', '200').inc();
  const stream = openRelayStream({
    reply,
    bus,
    control,
    sub,
    timing,
    streams: metrics.streams,
    stalled: STALLED,
    lost: LOST,
  });
  const { event, finish } = stream;
  event({ type: 'metadata', thread_id });
  event({ type: 'message_id', id: message_id });
  let firstToken = true;

  inbox.listen((data) => {
    if (stream.finished) return;
    const frame = decodeChatFrame(data);
    if (!stream.inOrder(frame?.seq) || !frame) return;
    switch (frame.type) {
      case 'heartbeat':
        return;
      case 'content':
        if (firstToken) {
          firstToken = false;
          const seconds = (performance.now() - startedAt) / 1000;
          metrics.firstToken.observe(seconds);
          if (frame.provider_ttft_ms !== undefined) {
            metrics.overhead.observe(Math.max(0, seconds - frame.provider_ttft_ms / 1000));
          }
        }
        event({ type: 'content', content: frame.content });
        return;
      case 'done':
        return finish('done', [{ type: 'ai_message_id', id: frame.ai_message_id }, { type: 'done' }]);
      case 'error':
        return finish('error', [{ type: 'error', content: frame.content }]);
      default: {
        const never: never = frame;
        return never;
      }
    }
  });
}
