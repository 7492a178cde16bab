import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { csrfToken, type Outcome, type ToolApi, userName, words } from './api.ts';
import { html } from './html.ts';

/** A link of an app's navigation. */
export interface NavLink {
  href: string;
  label: string;
  id: string;
}

interface Whoami {
  space: string;
  selected_space?: string;
  organizations: Array<{ name: string; title: string; suspended: boolean }>;
}

/**
 * The frame of every page: brand, the app's navigation, the space switcher (set_space — the same
 * selection the agent uses), the user's name and sign-out (a POST with the CSRF token).
 */
export function Layout(props: {
  api: ToolApi;
  nav: NavLink[];
  active: string;
  /** Shows the space switcher (needs whoami and set_space in the app's tools). */
  spaces?: boolean;
  children: ComponentChildren;
}) {
  return html`<div class="layout">
    <header class="top">
      <a class="brand" href="/">Studium</a>
      <nav class="nav">
        ${props.nav.map(
          (l) =>
            html`<a id=${`nav-${l.id}`} href=${l.href} class=${l.id === props.active ? 'active' : ''}>${l.label}</a>`,
        )}
      </nav>
      <div class="who">
        ${props.spaces && html`<${SpaceSwitcher} api=${props.api} />`}
        <span class="user">${userName()}</span>
        <form method="post" action="/logout" class="signout">
          <input type="hidden" name="csrf" value=${csrfToken()} />
          <button type="submit" id="signout">Выйти</button>
        </form>
      </div>
    </header>
    <main class="content">${props.children}</main>
  </div>`;
}

/** Chooses the space with set_space; the page reloads so every list shows the new space. */
export function SpaceSwitcher({ api }: { api: ToolApi }) {
  const [me, setMe] = useState<Whoami | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    api.call<Whoami>('whoami').then((o) => (o.ok ? setMe(o.data) : setError(words(o))));
  }, []);
  if (error) return html`<span class="error">${error}</span>`;
  if (!me) return null;
  const change = async (e: Event) => {
    const space = (e.target as HTMLSelectElement).value;
    const o: Outcome<unknown> = await api.call('set_space', { space });
    if (o.ok) location.reload();
    else setError(words(o));
  };
  return html`<label class="space">
    <span class="sr">Пространство</span>
    <select id="space" value=${me.space} onChange=${change}>
      <option value="personal">Личное</option>
      ${me.organizations.map(
        (o) =>
          html`<option value=${o.name} disabled=${o.suspended}>${o.title}${o.suspended ? ' (приостановлена)' : ''}</option>`,
      )}
    </select>
  </label>`;
}

/** A refusal or failure in words, where the action was. */
export function Problem({ outcome, id }: { outcome: Outcome<unknown> | null; id?: string }) {
  if (!outcome || outcome.ok) return null;
  return html`<p class="error" role="alert" id=${id}>${words(outcome)}</p>`;
}

/** Shown while a page's first call is on its way. */
export function Loading() {
  return html`<p class="muted">Загрузка…</p>`;
}

/** Mounts an app's page component into #app. */
export { render } from 'preact';
