import { render } from 'preact';
import { html } from '../../web/client/html.ts';
import { Layout } from '../../web/client/layout.ts';
import { api, NAV } from './common.ts';
import { CoursePage, CoursesPage } from './courses.ts';
import { HomeworkQueuePage, SubmissionPage } from './homework.ts';
import { NotesPage } from './notes.ts';
import { PassesPage } from './passes.ts';
import { ReaderPage } from './reader.ts';
import { ReportsPage } from './reports.ts';
import { TestersPage } from './testers.ts';

/** The page for the address: the server serves one HTML for every cabinet path. */
function route(path: string) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[1] === 'homework') {
    return parts[2]
      ? { active: 'homework', page: html`<${SubmissionPage} submission=${parts[2]} />` }
      : { active: 'homework', page: html`<${HomeworkQueuePage} />` };
  }
  if (parts[1] === 'courses' && parts[2]) {
    const course = parts[2];
    const pages: Record<string, unknown> = {
      release: html`<${ReaderPage} course=${course} />`,
      notes: html`<${NotesPage} course=${course} />`,
      reports: html`<${ReportsPage} course=${course} />`,
      passes: html`<${PassesPage} course=${course} />`,
      testers: html`<${TestersPage} course=${course} />`,
    };
    return { active: 'courses', page: pages[parts[3] ?? ''] ?? html`<${CoursePage} course=${course} />` };
  }
  return { active: 'courses', page: html`<${CoursesPage} />` };
}

const { active, page } = route(location.pathname);
render(html`<${Layout} api=${api} nav=${NAV} active=${active}>${page}</${Layout}>`, document.getElementById('app')!);
