import { toolApi } from '../../web/client/api.ts';
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
