import { useEffect, useState } from 'preact/hooks';

/** A refusal as the services send it: a spec code, a Russian message and its details. */
export interface Refusal {
  code: string;
  message: string;
  [detail: string]: unknown;
}

/** What a tool call gives a page: data, a refusal, or a failure's fixed phrase. */
export type Outcome<T> = { ok: true; data: T } | { ok: false; error: Refusal } | { ok: false; failure: string };

/** The session's CSRF token, put in the page by the server. */
export function csrfToken(): string {
  return document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
}

/** The signed-in user's name, put in the page by the server. */
export function userName(): string {
  return document.querySelector('meta[name="studium-user"]')?.getAttribute('content') ?? '';
}

/** Sends the browser to the sign-in page, to come back here. */
export function toSignIn(): void {
  location.href = `/login?next=${encodeURIComponent(location.pathname + location.search + location.hash)}`;
}

/**
 * The tool API of one web app (POST /api/<app>/tools/<tool>): the same operations, rules and
 * refusals as the MCP tools, as the signed-in user. Every call carries the CSRF token.
 */
export function toolApi(app: string) {
  return {
    async call<T = Record<string, unknown>>(tool: string, args: Record<string, unknown> = {}): Promise<Outcome<T>> {
      let res: Response;
      try {
        res = await fetch(`/api/${app}/tools/${tool}`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken() },
          body: JSON.stringify(args),
        });
      } catch {
        return { ok: false, failure: 'Нет связи с сервером. Проверьте интернет и повторите.' };
      }
      if (res.status === 401) {
        toSignIn();
        return { ok: false, failure: 'Сессия закончилась: войдите заново.' };
      }
      const body = (await res.json().catch(() => null)) as Outcome<T> | null;
      return body ?? { ok: false, failure: `Сервер ответил ошибкой ${res.status}. Повторите позже.` };
    },
  };
}
export type ToolApi = ReturnType<typeof toolApi>;

/** The words a person reads for a failed outcome (the refusal's Russian message, or the phrase). */
export function words(outcome: Outcome<unknown>): string {
  if (outcome.ok) return '';
  return 'error' in outcome ? outcome.error.message : outcome.failure;
}

/** The refusal code of an outcome, if it is a refusal. */
export function codeOf(outcome: Outcome<unknown>): string | null {
  return !outcome.ok && 'error' in outcome ? outcome.error.code : null;
}

/** Calls a tool when `key` changes; `reload` calls it again. */
export function useTool<T>(api: ToolApi, tool: string, args: Record<string, unknown>, key: string) {
  const [outcome, setOutcome] = useState<Outcome<T> | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    api.call<T>(tool, args).then((o) => live && setOutcome(o));
    return () => {
      live = false;
    };
  }, [key, round]);
  return { outcome, reload: () => setRound((r) => r + 1) };
}
