import { useState } from 'preact/hooks';
import { type Outcome, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { api } from './common.ts';

/** The text selected on the page, if any: the quote of a new note. */
function selectedText(): string {
  return (window.getSelection()?.toString() ?? '').trim().slice(0, 2000);
}

/**
 * «Заметка» on one place of the release: opens a form with the selected text as the quote; the
 * note goes to write_note on the place's target key (or the same node as a map node, `map.<key>`).
 */
export function NoteButton(props: { course: string; target: string; label: string; mapKey?: string }) {
  const [open, setOpen] = useState(false);
  const [quote, setQuote] = useState('');
  const [text, setText] = useState('');
  const [asMap, setAsMap] = useState(false);
  const [result, setResult] = useState<Outcome<{ note: string; label: string }> | null>(null);
  const [busy, setBusy] = useState(false);
  const target = asMap && props.mapKey ? `map.${props.mapKey}` : props.target;
  if (!open) {
    return html`<button type="button" class="note-open" data-target=${props.target}
      onMouseDown=${() => setQuote(selectedText())} onClick=${() => setOpen(true)}>Заметка</button>`;
  }
  const send = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const args: Record<string, unknown> = { course: props.course, target, text };
    if (quote.trim()) args.quote = quote;
    const o = await api.call<{ note: string; label: string }>('write_note', args);
    setBusy(false);
    setResult(o);
    if (o.ok) setText('');
  };
  return html`<form class="note-form" data-target=${props.target} onSubmit=${send}>
    <p class="muted">Место: ${props.label}${asMap ? ' — как узел карты курса' : ''}</p>
    ${
      props.mapKey &&
      html`<label><input type="checkbox" name="as-map" checked=${asMap}
      onChange=${(e: Event) => setAsMap((e.target as HTMLInputElement).checked)} /> как узел карты курса</label>`
    }
    <label>Цитата<textarea name="quote" rows="2" maxlength="2000" value=${quote}
      onInput=${(e: Event) => setQuote((e.target as HTMLTextAreaElement).value)}></textarea></label>
    <label>Заметка агенту<textarea name="text" rows="3" maxlength="10000" required value=${text}
      onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea></label>
    <div class="row">
      <button type="submit" class="primary" disabled=${busy}>Поставить заметку</button>
      <button type="button" onClick=${() => setOpen(false)}>Закрыть</button>
    </div>
    ${result?.ok && html`<p class="notice" role="status">Заметка поставлена: ${result.data.label}. Ваш агент увидит её среди заметок курса.</p>`}
    ${result && !result.ok && html`<p class="error" role="alert">${words(result)}</p>`}
  </form>`;
}
