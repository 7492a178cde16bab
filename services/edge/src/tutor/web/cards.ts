import { html } from '../../chat/web/html.ts';
import type { ToolView } from './api.ts';

type Question = {
  id: string;
  text: string;
  options: Array<{ id: string; text: string }>;
  number: number;
  total: number;
};

/**
 * The cards a tool's view becomes in the conversation: choose's buttons, the quiz question shown
 * whole (its options are buttons too), the quiz result, the lesson closed, the trial limit. A
 * click is the student's reply; only the last card of the conversation takes clicks.
 */
export function ToolCard({ view, active, reply }: { view: ToolView; active: boolean; reply: (text: string) => void }) {
  const v = view;
  switch (v.tool) {
    case 'choose':
      return html`<div class="card choose">
        ${v.title && html`<div class="card-title">${v.title}</div>`}
        <div class="card-prompt">${v.prompt}</div>
        <div class="buttons">
          ${(v.options ?? []).map(
            (o) => html`<button type="button" class="choice" disabled=${!active}
              onClick=${() => reply(`«${v.prompt}» — выбираю: ${o}`)}>${o}</button>`,
          )}
        </div>
      </div>`;
    case 'request_quiz':
      return html`<${QuestionCard} q=${v.question} active=${active} reply=${reply} />`;
    case 'submit_answer':
      return html`<div class="card verdict">
        <div class=${v.verdict?.correct ? 'right' : 'wrong'}>${v.verdict?.correct ? 'Верно' : 'Неверно'}</div>
        ${
          v.result &&
          html`<div class="quiz-result" id="quiz-result">
          Квиз ${v.result.passed ? 'сдан' : 'не сдан'}: ${Math.round(v.result.score * 100)}% (нужно ${Math.round(v.result.pass_threshold * 100)}%)
        </div>`
        }
      </div>
      ${v.question && html`<${QuestionCard} q=${v.question} active=${active} reply=${reply} />`}`;
    case 'start_lesson':
      return v.demo_exhausted ? html`<${DemoExhausted} used=${v.demo_exhausted.lessons_used} />` : null;
    default:
      return null;
  }
}

function QuestionCard({ q, active, reply }: { q: Question; active: boolean; reply: (text: string) => void }) {
  return html`<div class="card quiz" data-question=${q.id}>
    <div class="card-title">Вопрос ${q.number} из ${q.total}</div>
    <div class="card-prompt">${q.text}</div>
    <div class="buttons">
      ${q.options.map(
        (o) => html`<button type="button" class="option" data-option=${o.id} disabled=${!active}
          onClick=${() => reply(`${o.id}) ${o.text}`)}>${o.id}) ${o.text}</button>`,
      )}
    </div>
  </div>`;
}

/** The trial lessons are used: how to go on with one's own agent. */
export function DemoExhausted({ used }: { used: number }) {
  return html`<div class="card demo-exhausted" id="demo-exhausted">
    <strong>Пробные уроки в веб-чате закончились (${used}).</strong>
    <p>Дальше занятия идут с вашим собственным ИИ-агентом — Claude, ChatGPT или другим клиентом с поддержкой MCP.
    Подключите в нём сервер <code>${location.origin}/mcp</code> и войдите своей учётной записью Studium —
    агент продолжит курс с того же места: отметки и пройденные уроки сохранены.</p>
  </div>`;
}
