import { useEffect, useState } from 'preact/hooks';
import { type Outcome, toolApi } from '../../web/client/api.ts';
import type { NavLink } from '../../web/client/layout.ts';

/** The student app's tool API (/api/student/tools/<tool>). */
export const api = toolApi('student');

export const NAV: NavLink[] = [
  { id: 'courses', href: '/', label: 'Мои курсы' },
  { id: 'catalog', href: '/catalog', label: 'Каталог' },
  { id: 'documents', href: '/documents', label: 'Мои документы' },
  { id: 'profile', href: '/profile', label: 'Профиль' },
  { id: 'reports', href: '/reports', label: 'Мои репорты' },
];

/** A date in the student's local time, Russian. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Date(iso).toLocaleString('ru-RU', { dateStyle: 'medium', timeStyle: 'short' });
}

/** Lesson objective statuses in words. */
export const OBJECTIVE_WORDS: Record<string, string> = {
  not_started: 'не начата',
  touched: 'начата',
  covered: 'разобрана',
};

/** Homework statuses in words. */
export const HOMEWORK_WORDS: Record<string, string> = {
  Assigned: 'выдано, не сдано',
  Submitted: 'ждёт куратора',
  Returned: 'вернули на доработку',
  Accepted: 'принято',
};

/** A program (chain of courses) the course is in, and what locks the course. */
export interface Programs {
  programs: Array<{
    program: string;
    title: string;
    position: number;
    total: number;
    previous: { course: string; title: string } | null;
    next: { course: string; title: string } | null;
    member: boolean;
  }>;
  locked_by?: { course: string; title: string } | null;
}

/** The student's spaces as whoami gives them: the selected one and every organization's title. */
export interface Spaces {
  selected: string;
  titles: Map<string, string>;
}

let spaces: Promise<Outcome<{ space: string; organizations: Array<{ name: string; title: string }> }>> | null = null;

/** The spaces in words, asked once per page load; null until known. */
export function useSpaces(): Spaces | null {
  const [known, setKnown] = useState<Spaces | null>(null);
  useEffect(() => {
    spaces ??= api.call('whoami');
    spaces.then((o) => {
      if (o.ok)
        setKnown({ selected: o.data.space, titles: new Map(o.data.organizations.map((g) => [g.name, g.title])) });
    });
  }, []);
  return known;
}

/** A space in words: «личное» or the organization's title (its name while the title is unknown). */
export function spaceWords(space: string, known: Spaces | null): string {
  return space === 'personal' ? 'личное' : `«${known?.titles.get(space) ?? space}»`;
}

/**
 * Scrolls to the element the address's #anchor names: the browser tried at load, before the page
 * was rendered, and found nothing to scroll to.
 */
export function revealHash(): void {
  const id = decodeURIComponent(location.hash.slice(1));
  if (id) document.getElementById(id)?.scrollIntoView({ block: 'start' });
}
