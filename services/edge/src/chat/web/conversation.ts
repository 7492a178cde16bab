import { useLayoutEffect, useRef } from 'preact/hooks';
import { Answer } from './answer.ts';
import { html } from './html.ts';

/** A message on screen: a kept one, or one of this session that ended without being saved. */
export interface ViewMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  /** Why an answer is not in the thread (stopped, or the error event's text). */
  note?: string;
  failed?: boolean;
}

export interface ConversationProps {
  messages: ViewMessage[];
  /** The answer being written, or null. */
  live: string | null;
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  /** Bumped when older messages were put on top: the view keeps its place. */
  prepended: number;
}

/** Why a kept question has no answer after it (spec 001 keeps no answer that did not end). */
export const UNANSWERED = 'Ответа нет: его остановили или он прервался, а такие ответы не сохраняются.';

/** Whether message `i` is a kept question with no answer after it (and none being written). */
function unanswered(messages: ViewMessage[], i: number, live: string | null): boolean {
  const m = messages[i] as ViewMessage;
  if (m.role !== 'user' || m.id.startsWith('local-')) return false;
  const next = messages[i + 1];
  return next ? next.role === 'user' : live === null;
}

/** The messages of the open thread, oldest on top; scrolling to the top loads older ones. */
export function Conversation(props: ConversationProps) {
  const box = useRef<HTMLDivElement>(null);
  const fromBottom = useRef(0);
  const lastPrepended = useRef(props.prepended);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    if (props.prepended !== lastPrepended.current) {
      lastPrepended.current = props.prepended;
      el.scrollTop = el.scrollHeight - fromBottom.current;
    } else if (fromBottom.current - el.clientHeight < 120) {
      el.scrollTop = el.scrollHeight; // follow the answer while the reader is at the bottom
    }
  });

  const onScroll = () => {
    const el = box.current!;
    fromBottom.current = el.scrollHeight - el.scrollTop;
    if (el.scrollTop < 40 && props.hasOlder && !props.loadingOlder) props.onLoadOlder();
  };

  return html`<div class="messages" ref=${box} onScroll=${onScroll} role="region" aria-label="Разговор" tabindex="0">
    ${
      props.hasOlder &&
      html`<button id="load-older" class="older" disabled=${props.loadingOlder} onClick=${props.onLoadOlder}>
        ${props.loadingOlder ? 'Загружаю…' : 'Показать более ранние сообщения'}
      </button>`
    }
    ${props.messages.map(
      (m, i) => html`<div key=${m.id} class=${`msg ${m.role}${m.failed ? ' failed' : ''}`} data-id=${m.id}>
        ${m.role === 'user' ? html`<div class="text">${m.content}</div>` : m.content ? html`<${Answer} text=${m.content} streaming=${false} />` : null}
        ${m.note && html`<div class="note">${m.note}</div>`}
      </div>
      ${unanswered(props.messages, i, props.live) && html`<div key=${`${m.id}-unanswered`} class="unanswered">${UNANSWERED}</div>`}`,
    )}
    ${
      props.live !== null &&
      html`<div class="msg assistant live">
        ${props.live ? html`<${Answer} text=${props.live} streaming=${true} />` : html`<div class="typing">Ассистент думает…</div>`}
      </div>`
    }
  </div>`;
}
