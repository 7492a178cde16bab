import { useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, CourseTabs } from './common.ts';

interface Testers {
  course: string;
  status: string;
  testers: string[];
}

/** Testers: people who may study the course (agent and web pages) before it opens. */
export function TestersPage({ course }: { course: string }) {
  const { outcome, reload } = useTool<Testers>(api, 'course_testers', { course }, course);
  const [login, setLogin] = useState('');
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const change = async (tool: 'grant_tester' | 'revoke_tester', user: string) => {
    const o = await api.call(tool, { course, user });
    setResult(o);
    if (o.ok) {
      setLogin('');
      reload();
    }
  };
  const head = html`<${CourseTabs} course=${course} active="testers" /><h1>Тестеры</h1>`;
  if (!outcome) return html`${head}<${Loading} />`;
  if (!outcome.ok) return html`${head}<p class="error" role="alert">${words(outcome)}</p>`;
  const t = outcome.data;
  return html`${head}
    <p class="muted">${
      t.status === 'published'
        ? 'Курс открыт ученикам: тестерам доступ уже не нужен.'
        : 'Курс ещё не открыт. Тестер записывается на него и проходит его через агента и эти страницы раньше учеников.'
    }</p>
    <ul class="plain" id="testers">${t.testers.map(
      (u) =>
        html`<li data-tester=${u}>${u} <button type="button" class="revoke" onClick=${() => change('revoke_tester', u)}>Снять доступ</button></li>`,
    )}</ul>
    ${t.testers.length === 0 && html`<p class="muted">Тестеров нет.</p>`}
    <form class="row" id="grant" onSubmit=${(e: Event) => {
      e.preventDefault();
      change('grant_tester', login.trim());
    }}>
      <label>Логин (e-mail) <input name="login" type="email" maxlength="254" required value=${login}
        onInput=${(e: Event) => setLogin((e.target as HTMLInputElement).value)} /></label>
      <button type="submit" class="primary">Выдать доступ</button>
    </form>
    ${result && !result.ok && html`<p class="error" role="alert">${words(result)}</p>`}`;
}
