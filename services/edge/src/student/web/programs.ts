import { html } from '../../web/client/html.ts';
import type { Programs } from './common.ts';

/** A course's programs and what locks it, in words. */
export function ProgramLine({ course }: { course: Programs }) {
  return html`${course.programs.map(
    (p) =>
      html`<p class="muted program">Программа «${p.title}»: курс ${p.position} из ${p.total}${
        p.next ? html`, дальше — «${p.next.title}»` : ''
      }</p>`,
  )}
  ${course.locked_by && html`<p class="badge warn locked">Закрыт: сначала пройдите «${course.locked_by.title}»</p>`}`;
}
