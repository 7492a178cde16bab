import {
  decodeTutorFrame,
  TUTOR_CALLS_PER_ROUND,
  TUTOR_TOOL_RESULT_MAX,
  type TutorControl,
  type TutorToolCall,
  tutorStartTurn,
} from '@studium/contracts';
import { CONTROL_SUBJECT, isOnceSubject } from '@studium/platform';
import type { FastifyReply } from 'fastify';
import { sendChatError } from '../chat/replies.ts';
import { frameInbox, openRelayStream, type RelayTiming } from '../chat/sse-relay.ts';
import type { CallDeps, Caller } from '../mcp/tools.ts';
import { sendTutorRefusal, type TutorEdgeMetrics } from './metrics.ts';
import { runTutorTool } from './run-tool.ts';
import { lessonTitles } from './titles.ts';
import { pageView } from './view.ts';

export interface TutorRelayDeps {
  call: CallDeps;
  metrics: TutorEdgeMetrics;
  timing: RelayTiming;
}

const STALLED = 'Репетитор перестал отвечать, ход прерван. Ваше сообщение сохранено — напишите ещё раз.';
const LOST = 'Часть ответа потерялась по дороге, ход прерван. Ваше сообщение сохранено — напишите ещё раз.';
const enc = new TextEncoder();

/**
 * POST /v1/tutor/stream: starts a tutor turn in ai-chat and relays it as Server-Sent Events
 * (metadata, content…, tool views, done or error). The model's tool calls come here to run: the
 * edge holds the student's principal and signs it for each tool, so the lesson tools see the same
 * caller as at /mcp. Calls of one round run one after another, in the model's order.
 */
export async function relayTurn(
  deps: TutorRelayDeps,
  reply: FastifyReply,
  caller: Caller,
  args: { message: string; conversation_id: string | null; lesson: string | null },
): Promise<void> {
  const { call, metrics, timing } = deps;
  const bus = call.bus;
  const inbox = frameInbox(bus);
  const { sub } = inbox;
  let accepted: Awaited<ReturnType<typeof bus.request<typeof tutorStartTurn>>>;
  try {
    // A new conversation is named by its course and lesson from the start (the list, the tutor's instructions).
    const titles =
      args.conversation_id === null && args.lesson ? await lessonTitles(call, caller, args.lesson) : undefined;
    accepted = await bus.request(tutorStartTurn, caller.principal, { ...args, titles, inbox: inbox.subject });
  } catch (err) {
    sub.unsubscribe();
    call.log.warn({ err }, 'ai-chat did not accept the tutor turn');
    metrics.requests.labels('stream', '503').inc();
    return sendChatError(reply, 503, 'tutor_unavailable', 'Репетитор сейчас недоступен, попробуйте позже');
  }
  if (!accepted.ok) {
    sub.unsubscribe();
    return sendTutorRefusal(reply, 'stream', accepted.error, metrics);
  }
  const { conversation_id, control } = accepted.data;
  // The edge publishes its controls only to an answer's own control subject: a control that
  // ai-chat names elsewhere (another service's subject, the object store's API) is refused.
  if (!isOnceSubject(bus.prefix, CONTROL_SUBJECT, control)) {
    sub.unsubscribe();
    call.log.error({ control }, "ai-chat named a control subject that is not an answer's own");
    metrics.requests.labels('stream', '503').inc();
    return sendChatError(reply, 503, 'tutor_unavailable', 'Репетитор сейчас недоступен, попробуйте позже');
  }
  metrics.requests.labels('stream', '200').inc();
  let toolsRunning = false;
  let toolsMs = 0;
  const stream = openRelayStream({
    reply,
    bus,
    control,
    sub,
    timing,
    streams: metrics.streams,
    stalled: STALLED,
    lost: LOST,
    // While the edge itself runs tools, ai-chat waits silently on purpose.
    quiet: () => toolsRunning,
  });
  const { event, finish } = stream;
  const tell = (c: TutorControl) => bus.nc.publish(control, enc.encode(JSON.stringify(c)));
  event({ type: 'metadata', conversation_id });

  const runRound = async (round: number, calls: TutorToolCall[]) => {
    toolsRunning = true;
    const roundStarted = performance.now();
    const results: Array<{ id: string; content: string }> = [];
    // ai-chat sends at most TUTOR_CALLS_PER_ROUND; the edge does not take more on trust.
    for (const c of calls.slice(0, TUTOR_CALLS_PER_ROUND)) {
      if (stream.finished) return;
      const started = performance.now();
      const content = await runTutorTool(call, caller, c);
      metrics.toolSeconds.observe((performance.now() - started) / 1000);
      results.push({ id: c.id, content: content.slice(0, TUTOR_TOOL_RESULT_MAX) });
      const view = pageView(c.name, content);
      if (view) event({ type: 'tool', ...view });
    }
    toolsRunning = false;
    toolsMs += performance.now() - roundStarted;
    stream.heard();
    if (!stream.finished) tell({ type: 'tool_results', round, results });
  };

  inbox.listen((data) => {
    if (stream.finished) return;
    const frame = decodeTutorFrame(data);
    if (!stream.inOrder(frame?.seq) || !frame) return;
    switch (frame.type) {
      case 'heartbeat':
      case 'tool_refused':
        return;
      case 'content':
        return event({ type: 'content', content: frame.content });
      case 'tool_calls':
        void runRound(frame.round, frame.calls).catch((err) => {
          call.log.error({ err }, 'tutor tool round failed');
          finish('error', [{ type: 'error', content: LOST }]);
        });
        return;
      case 'done':
        // The provider's own time for the turn's rounds and the edge's for its tool calls: what
        // the platform added is the turn's time less the provider's.
        return finish('done', [
          { type: 'done', provider_ms: frame.provider_ms, tools_ms: Math.round(toolsMs * 10) / 10 },
        ]);
      case 'error':
        return finish('error', [{ type: 'error', content: frame.content }]);
      default: {
        const never: never = frame;
        return never;
      }
    }
  });
}
