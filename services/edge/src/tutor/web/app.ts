import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Answer } from '../../chat/web/answer.ts';
import { html } from '../../chat/web/html.ts';
import { ApiError, type Conversation, type Item, type TutorApi, tutorApi } from './api.ts';
import { ToolCard } from './cards.ts';
import { LessonHeader, lessonState } from './header.ts';

const TOKEN_KEY = 'studium.tutor.token';
const params = new URLSearchParams(location.search);

/** The page: sign-in with a token (until the student pages' cookie sign-in), then the lesson chat. */
function App() {
  const [token, setToken] = useState(() => localStorage.getItem(TOKEN_KEY) ?? '');
  if (!token)
    return html`<${SignIn} onToken=${(t: string) => {
      localStorage.setItem(TOKEN_KEY, t);
      setToken(t);
    }} />`;
  const signOut = (why?: string) => {
    localStorage.removeItem(TOKEN_KEY);
    if (why) sessionStorage.setItem('studium.tutor.why', why);
    setToken('');
  };
  return html`<${Tutor} key=${token} api=${tutorApi(token)} signOut=${signOut} />`;
}

function SignIn({ onToken }: { onToken: (t: string) => void }) {
  const [value, setValue] = useState('');
  const why = sessionStorage.getItem('studium.tutor.why');
  return html`<form class="signin" onSubmit=${(e: Event) => {
    e.preventDefault();
    if (value.trim()) onToken(value.trim());
  }}>
    <h1>Репетитор Studium</h1>
    <p>Вставьте ваш токен доступа Studium, чтобы заниматься в веб-чате.</p>
    ${why && html`<p class="error">${why}</p>`}
    <input id="token" type="password" autocomplete="off" placeholder="stu_…" value=${value}
      onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} />
    <button id="token-save" type="submit">Войти</button>
  </form>`;
}

function Tutor({ api, signOut }: { api: TutorApi; signOut: (why?: string) => void }) {
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
    if (err instanceof ApiError && err.status === 401) return signOut('Токен не подошёл или истёк: войдите заново.');
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
      <ul>
        ${list.map(
          (c) => html`<li key=${c.id} class=${`thread-item${c.id === current ? ' active' : ''}`} data-id=${c.id}>
            <button class="open" title=${c.title} onClick=${() => open(c.id)}>${c.title}</button>
          </li>`,
        )}
      </ul>
      <button class="signout" onClick=${() => signOut()}>Выйти</button>
    </aside>
    <main class="chat">
      <header class="topbar">
        <button id="threads-toggle" type="button" aria-controls="threads" aria-expanded=${drawer}
          onClick=${() => setDrawer(!drawer)}>☰ Занятия</button>
        <span class="topbar-title">Репетитор</span>
      </header>
      <${LessonHeader} state=${state} />
      ${model === false && html`<div class="banner no-model" id="no-model"><strong>ИИ-модель не подключена.</strong> Репетитор пока не может вести занятия: администратор платформы подключает модель в настройках сервиса ai-chat. Заниматься можно со своим ИИ-агентом через MCP.</div>`}
      ${error && html`<div class="banner error" role="alert">${error}</div>`}
      ${noLesson && html`<div class="empty"><h2>Откройте урок</h2><p>Начните занятие со страницы курса или урока — или откройте прошлое занятие в списке.</p></div>`}
      <div class="messages" ref=${box}>
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
