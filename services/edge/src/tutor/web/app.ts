import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Answer } from '../../chat/web/answer.ts';
import { html } from '../../chat/web/html.ts';
import { csrfToken } from '../../web/client/api.ts';
import { ApiError, type Conversation, type Item, type TutorApi, tutorApi } from './api.ts';
import { ToolCard } from './cards.ts';
import { LessonHeader, lessonState } from './header.ts';

const params = new URLSearchParams(location.search);

/**
 * How a conversation is listed: by its lesson and course (the course alone while a course's first
 * lesson has not started), or by its first message when neither title is known.
 */
function conversationTitle(c: Conversation): [string, string | null] {
  if (c.lesson_title) return [c.lesson_title, c.course_title];
  if (c.course_title) return [c.course_title, null];
  return [c.title, null];
}

/** Sends the browser to the sign-in page, to come back here. */
function toSignIn(): void {
  location.href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
}

/** The page is served to a signed-in student only (the web session); a lapsed session signs in again. */
function App() {
  return html`<${Tutor} api=${tutorApi()} />`;
}

function Tutor({ api }: { api: TutorApi }) {
  const target = params.get('lesson') ?? params.get('course');
  const [model, setModel] = useState<boolean | null>(null);
  const [list, setList] = useState<Conversation[]>([]);
  const [current, setCurrent] = useState<string | null>(params.get('conversation'));
  const [lesson, setLesson] = useState<string | null>(target);
  const [items, setItems] = useState<Item[]>([]);
  const [live, setLive] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [drawer, setDrawer] = useState(false);
  const stream = useRef<AbortController | null>(null);
  const box = useRef<HTMLDivElement>(null);

  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) return toSignIn();
    setError(err instanceof Error ? err.message : String(err));
  };
  const loadList = () =>
    api.conversations().then((r) => {
      setList(r.items);
      setModel(r.model_connected);
    }, fail);
  const open = async (id: string | null, forLesson: string | null = null) => {
    stream.current?.abort();
    setDrawer(false);
    setCurrent(id);
    setItems([]);
    setError(null);
    setLesson(forLesson);
    if (!id) return;
    try {
      const r = await api.messages(id);
      setItems(r.items);
      setLesson(r.conversation.lesson);
    } catch (err) {
      fail(err);
    }
  };
  useEffect(() => {
    void loadList();
    if (current) void open(current);
  }, [api]);
  useLayoutEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  });

  const send = async (text: string) => {
    text = text.trim();
    if (!text || stream.current) return;
    const ctl = new AbortController();
    stream.current = ctl;
    setError(null);
    setDraft('');
    let answer = '';
    const flush = (note?: string) => {
      if (answer || note) setItems((xs) => [...xs, { role: 'assistant', content: answer, ...(note ? { note } : {}) }]);
      answer = '';
    };
    setItems((xs) => [...xs, { role: 'user', content: text }]);
    setLive('');
    try {
      await api.send(
        { message: text, conversation_id: current, lesson: current ? null : lesson },
        (e) => {
          if (e.type === 'metadata') {
            if (!current) void loadList();
            setCurrent(e.conversation_id);
            history.replaceState(null, '', `/tutor?conversation=${e.conversation_id}`);
          } else if (e.type === 'content') {
            answer += e.content;
            setLive(answer);
          } else if (e.type === 'tool') {
            // The text so far stays above the card the tool drew.
            flush();
            setLive('');
            const { type: _t, ...view } = e;
            setItems((xs) => [...xs, { role: 'tool', view: view as Item extends { view: infer V } ? V : never }]);
          } else if (e.type === 'done') flush();
          else if (e.type === 'error') flush(e.content);
        },
        ctl.signal,
      );
    } catch (err) {
      if (ctl.signal.aborted) flush('Остановлено.');
      else {
        setItems((xs) => xs.slice(0, -1));
        setDraft(text);
        fail(err);
      }
    } finally {
      stream.current = null;
      setLive(null);
      // The list is by last activity, and a first start_lesson may have named the conversation's lesson.
      void loadList();
    }
  };

  const state = lessonState(items);
  const lastCard = items.reduce((at, it, i) => (it.role === 'tool' ? i : at), -1);
  const busy = live !== null;
  const noLesson = !current && !lesson;
  return html`<div class=${`layout tutor${drawer ? ' drawer-open' : ''}`}>
    <div class="scrim" onClick=${() => setDrawer(false)}></div>
    <aside class="threads" id="threads">
      ${target && html`<button id="new-thread" class="new" onClick=${() => open(null, target)}>+ Новое занятие</button>`}
      <ul aria-label="Занятия">
        ${list.map((c) => {
          const [name, course] = conversationTitle(c);
          return html`<li key=${c.id} class=${`thread-item${c.id === current ? ' active' : ''}`} data-id=${c.id}>
            <button class="open" title=${course ? `${name} — ${course}` : name} aria-current=${c.id === current ? 'true' : undefined}
              onClick=${() => open(c.id)}>
              <span class="conv-name">${name}</span>
              ${course && html`<span class="conv-course">${course}</span>`}
            </button>
          </li>`;
        })}
      </ul>
      <a class="home" href="/">Мои курсы</a>
      <form method="post" action="/logout" class="signout">
        <input type="hidden" name="csrf" value=${csrfToken()} />
        <button type="submit" id="signout">Выйти</button>
      </form>
    </aside>
    <main class="chat">
      <header class="topbar">
        <button id="threads-toggle" type="button" aria-controls="threads" aria-expanded=${drawer}
          onClick=${() => setDrawer(!drawer)}>☰ Занятия</button>
        <h1 class="topbar-title">Репетитор</h1>
      </header>
      <${LessonHeader} state=${state} />
      ${model === false && html`<div class="banner no-model" id="no-model"><strong>ИИ-модель не подключена.</strong> Репетитор пока не может вести занятия: администратор платформы подключает модель в настройках сервиса ai-chat. Заниматься можно со своим ИИ-агентом через MCP.</div>`}
      ${error && html`<div class="banner error" role="alert">${error}</div>`}
      ${noLesson && html`<div class="empty"><h2>Откройте урок</h2><p>Начните занятие со страницы курса или урока — или откройте прошлое занятие в списке.</p></div>`}
      <div class="messages" ref=${box} role="region" aria-label="Занятие" tabindex="0">
        ${items.length === 0 && !noLesson && html`<div class="empty"><h2>Начнём урок?</h2><p>Напишите репетитору — например, «Здравствуйте, давайте начнём».</p></div>`}
        ${items.map((it, i) =>
          it.role === 'tool'
            ? html`<${ToolCard} key=${i} view=${it.view} active=${i === lastCard && !busy && items.slice(i + 1).every((x) => x.role === 'assistant')} reply=${send} />`
            : html`<div key=${i} class=${`msg ${it.role}${it.note ? ' failed' : ''}`}>
                ${it.role === 'user' ? html`<div class="text">${it.content}</div>` : it.content && html`<${Answer} text=${it.content} streaming=${false} />`}
                ${it.note && html`<div class="note">${it.note}</div>`}
              </div>`,
        )}
        ${busy && html`<div class="msg assistant live">${live ? html`<${Answer} text=${live} streaming=${true} />` : html`<div class="typing">Репетитор думает…</div>`}</div>`}
      </div>
      <form class="composer" onSubmit=${(e: Event) => {
        e.preventDefault();
        void send(draft);
      }}>
        <textarea id="composer" rows="2" maxlength="4000" placeholder="Ваш ответ репетитору…" disabled=${noLesson || state.exhausted !== null}
          value=${draft} onInput=${(e: Event) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown=${(e: KeyboardEvent) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void send(draft);
            }
          }}></textarea>
        ${
          busy
            ? html`<button id="stop" type="button" class="stop" onClick=${() => stream.current?.abort()}>Остановить</button>`
            : html`<button id="send" type="submit" disabled=${!draft.trim()}>Отправить</button>`
        }
      </form>
    </main>
  </div>`;
}

render(html`<${App} />`, document.getElementById('app')!);
