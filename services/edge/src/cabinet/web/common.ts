import { toolApi } from '../../web/client/api.ts';
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

/** The course pages' tabs. */
export function CourseTabs({ course, active }: { course: string; active: string }) {
  const c = encodeURIComponent(course);
  const tabs = [
    ['', 'Курс и релизы'],
    ['release', 'Релиз'],
    ['notes', 'Заметки'],
    ['reports', 'Репорты'],
    ['passes', 'Прохождения'],
    ['testers', 'Тестеры'],
  ];
  return html`<nav class="tabs">${tabs.map(
    ([tab, label]) =>
      html`<a id=${`tab-${tab || 'course'}`} class=${tab === active ? 'active' : ''} href=${`/cabinet/courses/${c}${tab ? `/${tab}` : ''}`}>${label}</a>`,
  )}</nav>`;
}

/** Note statuses and turns in words. */
export const NOTE_WORDS: Record<string, string> = { open: 'открыта', done: 'сделана агентом', accepted: 'принята' };
export const TURN_WORDS: Record<string, string> = { author: 'ждёт вас', agent: 'ждёт агента' };
