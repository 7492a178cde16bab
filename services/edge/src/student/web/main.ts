import { render } from 'preact';
import { html } from '../../web/client/html.ts';
import { Layout } from '../../web/client/layout.ts';
import { AssistantsPage } from './assistants.ts';
import { CatalogPage } from './catalog.ts';
import { api, NAV } from './common.ts';
import { CoursePage } from './course.ts';
import { CoursesPage } from './courses.ts';
import { DocumentsPage } from './documents.ts';
import { LessonPage } from './lesson.ts';
import { ProfilePage } from './profile.ts';
import { ReportsPage } from './reports.ts';

/** The page for the address: the server serves one HTML for every student path. */
function route(path: string) {
  const param = (prefix: string) => decodeURIComponent(path.slice(prefix.length).split('/')[0] ?? '');
  if (path.startsWith('/courses/'))
    return { active: 'courses', page: html`<${CoursePage} course=${param('/courses/')} />` };
  if (path.startsWith('/lessons/'))
    return { active: 'courses', page: html`<${LessonPage} lesson=${param('/lessons/')} />` };
  if (path === '/catalog') return { active: 'catalog', page: html`<${CatalogPage} />` };
  if (path === '/documents') return { active: 'documents', page: html`<${DocumentsPage} />` };
  if (path === '/profile') return { active: 'profile', page: html`<${ProfilePage} />` };
  if (path === '/profile/assistants') return { active: 'profile', page: html`<${AssistantsPage} />` };
  if (path === '/reports') return { active: 'reports', page: html`<${ReportsPage} />` };
  return { active: 'courses', page: html`<${CoursesPage} />` };
}

const { active, page } = route(location.pathname);
render(
  html`<${Layout} api=${api} nav=${NAV} active=${active} spaces=${true}>${page}</${Layout}>`,
  document.getElementById('app')!,
);
