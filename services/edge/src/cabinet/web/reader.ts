import { useState } from 'preact/hooks';
import { useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, CourseTabs, ITEM_KIND_WORDS } from './common.ts';
import { NoteButton } from './note-form.ts';

interface Goal {
  key: string;
  kind: string;
  required: boolean;
  title: string;
}
interface Question {
  key: string;
  text: string;
  options: Array<{ id: string; text: string }>;
  correct: string;
  explanation: string | null;
}
interface Lesson {
  key: string;
  title: string;
  chapter: string | null;
  hook: string | null;
  objectives: Array<{ key: string; text: string; goals: Goal[] }>;
  questions: Question[];
}
interface Full {
  course: { course_key: string; title: string; release: string; version: number };
  chapters: Array<{ key: string; title: string }>;
  lessons: Lesson[];
  document: { key: string; title: string; blocks: Array<{ key: string; title: string }> } | null;
}

/**
 * The release reader: the active release, course → chapters → lessons → objectives, items and
 * questions (with the correct answer and explanation), document sections; each place carries its
 * note target key, and a lesson opens its agent package (frame, lesson slice, item details).
 */
export function ReaderPage({ course }: { course: string }) {
  const { outcome } = useTool<Full>(api, 'course_release', { course }, course);
  if (!outcome) return html`<${CourseTabs} course=${course} active="release" /><${Loading} />`;
  if (!outcome.ok)
    return html`<${CourseTabs} course=${course} active="release" /><p class="error" role="alert">${words(outcome)}</p>`;
  const r = outcome.data;
  const note = (target: string, label: string, mapKey?: string) =>
    html`<${NoteButton} course=${course} target=${target} label=${label} mapKey=${mapKey} />`;
  return html`<${CourseTabs} course=${course} active="release" />
    <h1 class="place" data-place="course">${r.course.title} ${note('course', 'курс целиком', r.course.course_key)}</h1>
    <p class="muted">Действующая версия ${r.course.version}. Выделите текст — он станет цитатой заметки.</p>
    ${r.chapters.map(
      (ch) => html`<section class="chapter">
        <h2 class="place" data-place=${`chapter.${ch.key}`}>${ch.title} ${note(`chapter.${ch.key}`, `глава «${ch.title}»`, ch.key)}</h2>
        ${r.lessons.filter((l) => l.chapter === ch.title).map((l) => html`<${LessonBlock} key=${l.key} course=${course} lesson=${l} />`)}
      </section>`,
    )}
    ${r.lessons.filter((l) => !r.chapters.some((c) => c.title === l.chapter)).map((l) => html`<${LessonBlock} key=${l.key} course=${course} lesson=${l} />`)}
    ${
      r.document &&
      html`<section class="document"><h2>Документ «${r.document.title}»</h2>
      ${r.document.blocks.map((b) => html`<p class="place" data-place=${`section.${b.key}`}>${b.title} ${note(`section.${b.key}`, `раздел документа «${b.title}»`, b.key)}</p>`)}
    </section>`
    }`;
}

function LessonBlock({ course, lesson: l }: { course: string; lesson: Lesson }) {
  const [agent, setAgent] = useState(false);
  const note = (target: string, label: string, mapKey?: string) =>
    html`<${NoteButton} course=${course} target=${target} label=${label} mapKey=${mapKey} />`;
  return html`<article class="card lesson" data-lesson=${l.key}>
    <h3 class="place" data-place=${`lesson.${l.key}`}>${l.title} ${note(`lesson.${l.key}`, `урок «${l.title}»`, l.key)}</h3>
    ${l.hook && html`<p class="hook">${l.hook}</p>`}
    ${l.objectives.map(
      (o) => html`<div class="objective">
        <p class="place" data-place=${`objective.${o.key}`}><b>Цель:</b> ${o.text} ${note(`objective.${o.key}`, `цель «${o.text}»`, o.key)}</p>
        <ul class="plain">${o.goals.map(
          (g) => html`<li class="place" data-place=${`goal.${l.key}/${g.key}`}>
            <span class="badge">${ITEM_KIND_WORDS[g.kind] ?? g.kind}</span> <span class="goal-title">${g.title}</span>${g.required ? '' : ' (необязательный)'} ${note(`goal.${l.key}/${g.key}`, `пункт «${g.title}»`)}</li>`,
        )}</ul></div>`,
    )}
    ${
      l.questions.length > 0 &&
      html`<h4>Вопросы квиза</h4>${l.questions.map(
        (q) => html`<div class="question place" data-place=${`question.${q.key}`}>
        <p>${q.text} ${note(`question.${q.key}`, `вопрос «${q.text}»`, q.key)}</p>
        <ul class="plain">${q.options.map((op) => html`<li class=${op.id === q.correct ? 'correct' : ''}>${op.id === q.correct ? '✓ ' : ''}${op.text}</li>`)}</ul>
        ${q.explanation && html`<p class="muted">Пояснение: ${q.explanation}</p>`}
      </div>`,
      )}`
    }
    <button type="button" class="agent-open" onClick=${() => setAgent(!agent)}>${agent ? 'Скрыть пакет агента' : 'Пакет агента'}</button>
    ${agent && html`<${AgentPackage} course=${course} lesson=${l.key} />`}
  </article>`;
}

interface Agent {
  frame: unknown;
  lesson: {
    directive?: string;
    material?: string;
    objectives: Array<{ key: string; items: Array<{ key: string; title: string; details: string }> }>;
  };
}

/** The lesson's agent package: the course frame, the lesson slice and each item's details. */
function AgentPackage({ course, lesson }: { course: string; lesson: string }) {
  const { outcome } = useTool<{ agent: Agent }>(api, 'course_release', { course, lesson }, lesson);
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  const a = outcome.data.agent;
  const note = (target: string, label: string) =>
    html`<${NoteButton} course=${course} target=${target} label=${label} />`;
  return html`<div class="agent-package">
    <h4 class="place" data-place="agent.frame">Рамка курса ${note('agent.frame', 'рамка курса для агента')}</h4>
    <pre>${typeof a.frame === 'string' ? a.frame : JSON.stringify(a.frame, null, 2)}</pre>
    <h4 class="place" data-place=${`agent.lesson.${lesson}`}>Срез урока ${note(`agent.lesson.${lesson}`, 'срез урока для агента')}</h4>
    ${a.lesson.directive && html`<pre>${a.lesson.directive}</pre>`}
    ${a.lesson.material && html`<pre>${a.lesson.material}</pre>`}
    ${a.lesson.objectives
      .flatMap((o) => o.items)
      .map(
        (i) => html`<div class="place" data-place=${`agent.item.${lesson}/${i.key}`}>
        <b>${i.title}</b> ${note(`agent.item.${lesson}/${i.key}`, `подробности пункта «${i.title}» для агента`)}<pre>${i.details}</pre></div>`,
      )}
  </div>`;
}
