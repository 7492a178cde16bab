import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, type ChatApi, chatApi, type Thread } from './api.ts';
import { Conversation, type ViewMessage } from './conversation.ts';
import { html } from './html.ts';

const TOKEN_KEY = 'studium.chat.token';
const PAGE = 20;

/** The page: sign-in with a token, then threads on the left and the conversation on the right. */
export function App() {
  const [token, setToken] = useState(() => localStorage.getItem(TOKEN_KEY) ?? '');
  if (!token)
    return html`<${SignIn} onToken=${(t: string) => {
      localStorage.setItem(TOKEN_KEY, t);
      setToken(t);
    }} />`;
  const signOut = (why?: string) => {
    localStorage.removeItem(TOKEN_KEY);
    if (why) sessionStorage.setItem('studium.chat.why', why);
    setToken('');
  };
  return html`<${Chat} key=${token} api=${chatApi(token)} signOut=${signOut} />`;
}

function SignIn({ onToken }: { onToken: (t: string) => void }) {
  const [value, setValue] = useState('');
  const why = sessionStorage.getItem('studium.chat.why');
  return html`<main><form class="signin" onSubmit=${(e: Event) => {
    e.preventDefault();
    if (value.trim()) onToken(value.trim());
  }}>
    <h1>ИИ-ассистент учителя</h1>
    <p id="token-help">Вставьте ваш токен доступа Studium (его выдаёт администратор платформы).</p>
    ${why && html`<p class="error" role="alert">${why}</p>`}
    <label for="token" class="sr">Токен доступа</label>
    <input id="token" type="password" autocomplete="off" placeholder="stu_…" aria-describedby="token-help" value=${value}
      onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} />
    <button id="token-save" type="submit">Войти</button>
  </form></main>`;
}

function Chat({ api, signOut }: { api: ChatApi; signOut: (why?: string) => void }) {
  const [model, setModel] = useState<{ connected: boolean; how: string | null } | null>(null);
  const [threads, setThreads] = useState<Thread[]>([]);
  const [threadsTotal, setThreadsTotal] = useState(0);
  const [current, setCurrent] = useState<string | null>(null);
  const [messages, setMessages] = useState<ViewMessage[]>([]);
  const [msgTotal, setMsgTotal] = useState(0);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [prepended, setPrepended] = useState(0);
  const [live, setLive] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  // At phone width the thread list is a drawer over the conversation (see chat.css).
  const [drawer, setDrawer] = useState(false);
  const stream = useRef<AbortController | null>(null);
  const opened = useRef<string | null>(null);

  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) return signOut('Токен не подошёл или истёк: войдите заново.');
    setError(err instanceof Error ? err.message : String(err));
  };
  const loadThreads = async (pages = 1) => {
    const page = await api.threads(1, 30 * pages);
    setThreads(page.items);
    setThreadsTotal(page.total);
  };
  useEffect(() => {
    api.status().then(setModel, fail);
    loadThreads().catch(fail);
  }, [api]);

  const openThread = async (id: string | null) => {
    setDrawer(false);
    stream.current?.abort();
    opened.current = id;
    setCurrent(id);
    setMessages([]);
    setMsgTotal(0);
    setError(null);
    if (!id) return;
    try {
      const page = await api.messages(id, 1, PAGE);
      if (opened.current !== id) return;
      setMessages(page.items.reverse());
      setMsgTotal(page.total);
    } catch (err) {
      fail(err);
    }
  };

  const kept = useMemo(() => messages.filter((m) => !m.note && !m.id.startsWith('local-')), [messages]);
  const loadOlder = async () => {
    if (!current || loadingOlder) return;
    setLoadingOlder(true);
    try {
      // New messages shift the pages of a newest-first list: ask for the page after those we hold, drop repeats.
      const page = await api.messages(current, Math.floor(kept.length / PAGE) + 1, PAGE);
      setMessages((ms) => {
        const have = new Set(ms.map((m) => m.id));
        return [...page.items.filter((m) => !have.has(m.id)).reverse(), ...ms];
      });
      setMsgTotal(page.total);
      setPrepended((n) => n + 1);
    } catch (err) {
      fail(err);
    } finally {
      setLoadingOlder(false);
    }
  };

  const send = async () => {
    const text = draft.trim();
    if (!text || stream.current) return;
    const ctl = new AbortController();
    stream.current = ctl;
    setError(null);
    setDraft('');
    let userId = `local-${Date.now()}`;
    let answer = '';
    let thread = current;
    const finish = (m: ViewMessage | null) => {
      if (m) setMessages((ms) => [...ms, m]);
      setLive(null);
      stream.current = null;
    };
    setMessages((ms) => [...ms, { id: userId, role: 'user', content: text }]);
    setLive('');
    try {
      await api.send(
        text,
        current,
        (e) => {
          if (e.type === 'metadata') {
            if (!thread) loadThreads().catch(() => {});
            thread = e.thread_id;
            opened.current = thread;
            setCurrent(thread);
          } else if (e.type === 'message_id') {
            const local = userId;
            userId = e.id;
            setMessages((ms) => ms.map((m) => (m.id === local ? { ...m, id: e.id } : m)));
            setMsgTotal((n) => n + 1);
          } else if (e.type === 'content') {
            answer += e.content;
            setLive(answer);
          } else if (e.type === 'ai_message_id') {
            finish({ id: e.id, role: 'assistant', content: answer });
            setMsgTotal((n) => n + 1);
          } else if (e.type === 'error') {
            finish({ id: `local-${Date.now()}`, role: 'assistant', content: answer, note: e.content, failed: true });
          }
        },
        ctl.signal,
      );
      if (stream.current === ctl) {
        finish({
          id: `local-${Date.now()}`,
          role: 'assistant',
          content: answer,
          note: 'Связь прервалась: ответ не сохранён.',
          failed: true,
        });
      }
      loadThreads().catch(() => {});
    } catch (err) {
      if (ctl.signal.aborted) {
        finish({
          id: `local-${Date.now()}`,
          role: 'assistant',
          content: answer,
          note: 'Ответ остановлен и не сохранён.',
          failed: true,
        });
        if (thread) loadThreads().catch(() => {});
        return;
      }
      // Refused before the stream (404, 422, 429…): nothing was saved; the text goes back to the box.
      setMessages((ms) => ms.filter((m) => m.id !== userId));
      setDraft(text);
      finish(null);
      fail(err);
    }
  };
  const stop = () => stream.current?.abort();

  const remove = async (t: Thread) => {
    if (!confirm(`Удалить тред «${t.title}» со всеми сообщениями?`)) return;
    try {
      await api.deleteThread(t.id);
      if (current === t.id) await openThread(null);
      await loadThreads();
    } catch (err) {
      fail(err);
    }
  };

  const title = threads.find((t) => t.id === current)?.title ?? 'Новый разговор';
  return html`<div class=${`layout${drawer ? ' drawer-open' : ''}`}>
    <div class="scrim" onClick=${() => setDrawer(false)}></div>
    <aside class="threads" id="threads">
      <button id="new-thread" class="new" onClick=${() => openThread(null)}>+ Новый разговор</button>
      <ul>
        ${threads.map(
          (t) => html`<li key=${t.id} class=${`thread-item${t.id === current ? ' active' : ''}`} data-id=${t.id}>
            <button class="open" title=${t.title} onClick=${() => openThread(t.id)}>${t.title}</button>
            <button class="delete-thread" title="Удалить тред" onClick=${() => remove(t)}>×</button>
          </li>`,
        )}
      </ul>
      ${threads.length < threadsTotal && html`<button class="more" onClick=${() => loadThreads(Math.ceil(threads.length / 30) + 1)}>Ещё треды</button>`}
      <button class="signout" onClick=${() => signOut()}>Выйти</button>
    </aside>
    <main class="chat">
      <header class="topbar">
        <button id="threads-toggle" type="button" aria-controls="threads" aria-expanded=${drawer}
          onClick=${() => setDrawer(!drawer)}>☰ Разговоры</button>
        <h1 class="topbar-title">${title}</h1>
      </header>
      ${
        model &&
        !model.connected &&
        html`<div class="banner no-model"><strong>ИИ-модель не подключена.</strong> ${model.how}</div>`
      }
      ${error && html`<div class="banner error" role="alert">${error}</div>`}
      ${
        !current && messages.length === 0
          ? html`<div class="empty"><h2>О чём поговорим?</h2><p>Спросите о предмете, методике или плане урока. Формулы ассистент пишет в LaTeX.</p></div>`
          : html`<${Conversation} messages=${messages} live=${live} hasOlder=${kept.length < msgTotal}
              loadingOlder=${loadingOlder} onLoadOlder=${loadOlder} prepended=${prepended} />`
      }
      <form class="composer" onSubmit=${(e: Event) => {
        e.preventDefault();
        void send();
      }}>
        <textarea id="composer" rows="3" maxlength="8000" placeholder="Ваш вопрос ассистенту… (Enter — отправить, Shift+Enter — новая строка)"
          value=${draft} onInput=${(e: Event) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown=${(e: KeyboardEvent) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void send();
            }
          }}></textarea>
        ${
          live !== null
            ? html`<button id="stop" type="button" class="stop" onClick=${stop}>Остановить</button>`
            : html`<button id="send" type="submit" disabled=${!draft.trim()}>Отправить</button>`
        }
      </form>
    </main>
  </div>`;
}
