import { useEffect, useState } from 'preact/hooks';
import { type Outcome, toolApi } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import type { NavLink } from '../../web/client/layout.ts';

/** The cabinet's tool API (/api/cabinet/tools/<tool>). */
export const api = toolApi('cabinet');

export const NAV: NavLink[] = [
  { id: 'courses', href: '/cabinet', label: 'Курсы' },
  { id: 'homework', href: '/cabinet/homework', label: 'Домашки' },
  { id: 'study', href: '/', label: 'Учёба' },
];

/** A date in the reader's local time, Russian. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Date(iso).toLocaleString('ru-RU', { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * Words a student wrote (report text, evidence, homework answer): always shown as a quotation of
 * the student, as text (preact escapes it; nothing here is ever HTML), never as the author's words.
 */
export function StudentText({ text, label = 'Слова ученика' }: { text: string | null; label?: string }) {
  if (!text) return null;
  return html`<blockquote class="student-text"><span class="who-said">${label}:</span> ${text}</blockquote>`;
}

/** The words of a lesson item's kind (the spec's term, choice, execution, misconception). */
export const ITEM_KIND_WORDS: Record<string, string> = {
  term: 'термин',
  choice: 'выбор',
  execution: 'исполнение',
  misconception: 'заблуждение',
};

type Releases = { title?: string; releases: ReleaseRow[] };

/** A release of the course's history (course_releases). */
export interface ReleaseRow {
  release: string;
  version: number;
  published_at: string;
  published_by: string;
  digest: string;
  commit: string | null;
  active: boolean;
}

const histories = new Map<string, Promise<Outcome<Releases>>>();

/**
 * The course's release history with its title (course_releases), asked once per page load: the
 * heading of every course page and the course page's table share the one call.
 */
export function courseHistory(course: string): Promise<Outcome<Releases>> {
  let kept = histories.get(course);
  if (!kept) {
    kept = api.call<Releases>('course_releases', { course });
    histories.set(course, kept);
  }
  return kept;
}

/** The course's title for headings; null until known (or when the course is refused). */
export function useCourseTitle(course: string): string | null {
  const [title, setTitle] = useState<string | null>(null);
  useEffect(() => {
    courseHistory(course).then((o) => o.ok && setTitle(o.data.title ?? null));
  }, [course]);
  return title;
}

/** The course pages' tabs, under a trail back to the course list with the course's title. */
export function CourseTabs({ course, active }: { course: string; active: string }) {
  const title = useCourseTitle(course);
  const c = encodeURIComponent(course);
  const tabs = [
    ['', 'Курс и релизы'],
    ['release', 'Релиз'],
    ['notes', 'Заметки'],
    ['reports', 'Репорты'],
    ['passes', 'Прохождения'],
    ['testers', 'Тестеры'],
  ];
  return html`<p class="crumbs muted"><a href="/cabinet">Курсы</a> › <span id="course-name">${title ?? 'курс'}</span></p>
    <nav class="tabs" aria-label="Разделы курса">${tabs.map(
      ([tab, label]) =>
        html`<a id=${`tab-${tab || 'course'}`} class=${tab === active ? 'active' : ''} aria-current=${tab === active ? 'page' : undefined} href=${`/cabinet/courses/${c}${tab ? `/${tab}` : ''}`}>${label}</a>`,
    )}</nav>`;
}

/** Note statuses and turns in words. */
export const NOTE_WORDS: Record<string, string> = { open: 'открыта', done: 'сделана агентом', accepted: 'принята' };
export const TURN_WORDS: Record<string, string> = { author: 'ждёт вас', agent: 'ждёт агента' };

/**
 * A table wider than a phone scrolls sideways in its own box: a named region that takes the
 * keyboard's focus, so it can be scrolled without a mouse (axe: scrollable-region-focusable).
 */
export function ScrollBox({ label, children }: { label: string; children: unknown }) {
  return html`<div class="table" tabindex="0" role="region" aria-label=${label}>${children}</div>`;
}
