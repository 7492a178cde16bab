// The choose card (MCP Apps view): a question and one button per option; a pressed button goes
// into the conversation as the student's message.
import type { App } from '@modelcontextprotocol/ext-apps';
import { byId, el, okData, openView } from './app.ts';

interface Choice {
  prompt?: string;
  options?: string[];
  title?: string;
}

let app: App | null = null;
let chosen = false;

function render(choice: Choice | undefined) {
  // Once a button is pressed the card stays as it was answered.
  if (chosen) return;
  const { prompt = '', options = [], title = '' } = choice ?? {};
  byId('title').textContent = title;
  byId('prompt').textContent = prompt;
  const box = byId('opts');
  box.replaceChildren();
  for (const option of options) {
    const b = el('button', null, option) as HTMLButtonElement;
    b.onclick = () => {
      chosen = true;
      for (const x of Array.from(box.querySelectorAll('button'))) x.disabled = true;
      b.classList.add('chosen');
      void app?.sendMessage({ role: 'user', content: [{ type: 'text', text: `«${prompt}» — выбираю: ${option}` }] });
    };
    box.appendChild(b);
  }
}

void openView('choose', (a) => {
  app = a;
  a.ontoolinput = (params) => render(params.arguments as Choice);
  // The result has the options as the server took them (trimmed, empty ones dropped).
  a.ontoolresult = (result) => {
    const data = okData<Choice>(result);
    if (data) render(data);
  };
});
