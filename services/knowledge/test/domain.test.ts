import { describe, expect, it } from 'vitest';
import { detectLanguage } from '../src/domain/language.ts';
import { applyEdit, outline, titleOf, wikiLinks, withTitle } from '../src/domain/markdown.ts';
import { childFolder, handleOf, normalisePath } from '../src/domain/paths.ts';
import { estimateTokens, fuse, snippetOf } from '../src/domain/ranking.ts';
import { orderByKeys } from '../src/domain/student-notes.ts';

describe('language', () => {
  it('tells Kazakh, Russian and other text apart', () => {
    expect(detectLanguage('Мектептегі оқушыларға арналған сабақ жоспары')).toBe('kk');
    expect(detectLanguage('План урока для учеников школы')).toBe('ru');
    expect(detectLanguage('Lesson plan for school pupils')).toBe('simple');
    expect(detectLanguage('')).toBe('simple');
  });
});

describe('markdown', () => {
  const body =
    '# Настройка\n\nВведение [[Сервер]] и [[сервер|тот же]].\n\n## Шаги\n\nпервый\n\n### Деталь\n\nx\n\n## Итог\n\nконец\n';
  it('takes the title from the first H1 and rewrites it', () => {
    expect(titleOf(body)).toBe('Настройка');
    expect(titleOf('no heading')).toBeNull();
    expect(titleOf(withTitle(body, 'Новая'))).toBe('Новая');
    expect(titleOf(withTitle('text', 'Т'))).toBe('Т');
  });
  it('reads the title as Markdown does: a # line inside code, a quote or a list is no title', () => {
    const fenced = '```sh\n# install the tools\nnpm ci\n```\n\n# Установка\n\nтекст\n';
    expect(titleOf(fenced)).toBe('Установка');
    expect(titleOf('~~~\n# тильды\n~~~\n')).toBeNull();
    expect(titleOf('    # indented code\n\nтекст')).toBeNull();
    expect(titleOf('> # цитата\n\n- # пункт\n')).toBeNull();
    // Spec 004 names the `# H1`: a setext heading is not a title; the closing #s are not part of it.
    expect(titleOf('Заголовок\n===\n')).toBeNull();
    expect(titleOf('# Итоги ##\r\n\r\nтекст')).toBe('Итоги');
    // Rewriting the title touches the real H1, not the code line above it.
    const renamed = withTitle(fenced, 'Сборка');
    expect(renamed).toContain('# install the tools');
    expect(titleOf(renamed)).toBe('Сборка');
    expect(withTitle('```\n# код\n```\n', 'Новая')).toBe('# Новая\n\n```\n# код\n```\n');
    const pre = applyEdit(fenced, 'prepend', 'голова');
    expect(pre.ok && pre.body.split('\n').slice(5, 8)).toEqual(['# Установка', '', 'голова']);
    expect(outline(`${fenced}\n## Шаг\n\n\`\`\`\n## не раздел\n\`\`\`\n`).map((h) => h.heading)).toEqual([
      'Установка',
      'Шаг',
    ]);
    const sec = applyEdit('# Т\n\n## А\n\n```\n## Б\n```\n\n## В\n\nв\n', 'replaceSection', 'новое', 'А');
    expect(sec.ok && sec.body).toBe('# Т\n\n## А\nновое\n\n## В\n\nв\n');
  });
  it('lists headings and distinct wiki links', () => {
    expect(outline(body).map((h) => h.heading)).toEqual(['Настройка', 'Шаги', 'Деталь', 'Итог']);
    expect(wikiLinks(body)).toEqual(['Сервер']);
  });
  it('applies each edit mode by words', () => {
    expect(applyEdit(body, 'append', 'хвост')).toMatchObject({ ok: true });
    const pre = applyEdit(body, 'prepend', 'голова');
    expect(pre.ok && pre.body.split('\n').slice(0, 3)).toEqual(['# Настройка', '', 'голова']);
    const sec = applyEdit(body, 'replaceSection', 'новые шаги', 'Шаги');
    expect(sec.ok && sec.body).toContain('## Шаги\nновые шаги\n\n## Итог');
    expect(sec.ok && sec.body).not.toContain('Деталь');
    expect(applyEdit(body, 'replaceSection', 'x', 'Нет такого')).toEqual({ ok: false, code: 'sectionNotFound' });
    expect(applyEdit(body, 'findReplace', 'последний', undefined, 'первый')).toMatchObject({ ok: true });
    expect(applyEdit(body, 'findReplace', '', undefined, 'Введение ')).toMatchObject({ ok: true });
    expect(applyEdit(body, 'findReplace', 'y', undefined, '##')).toMatchObject({ ok: false, code: 'snippetNotUnique' });
    expect(applyEdit(body, 'findReplace', 'y', undefined, 'нет')).toMatchObject({ ok: false, code: 'snippetNotFound' });
    expect(applyEdit(body, 'rewrite', 'y')).toEqual({ ok: false, code: 'unknownEditMode' });
  });
});

describe('paths and handles', () => {
  it('normalises folders and refuses dot segments', () => {
    expect(normalisePath(' a// b /')).toBe('a/b');
    expect(normalisePath(undefined)).toBe('');
    expect(normalisePath('a/../b')).toBeNull();
    expect(childFolder('', 'a/b')).toBe('a');
    expect(childFolder('a', 'a/b/c')).toBe('b');
    expect(childFolder('a', 'ab')).toBeNull();
  });
  it('collapses the root project handle to the space', () => {
    expect(handleOf('acme', '')).toBe('acme');
    expect(handleOf('acme', 'docs')).toBe('acme/docs');
  });
});

describe('ranking', () => {
  it('fuses lists and normalises the top of every list to 1', () => {
    const fused = fuse([
      ['a', 'b'],
      ['a', 'c'],
    ]);
    expect(fused[0]).toEqual({ id: 'a', score: 1 });
    expect(fused[1].score).toBeLessThan(1);
    expect(fused.map((f) => f.id).sort()).toEqual(['a', 'b', 'c']);
  });
  it('estimates tokens and cuts snippets around the query', () => {
    expect(estimateTokens('abcde')).toBe(2);
    const s = snippetOf(`${'слово '.repeat(100)}искомое место`, 'искомое');
    expect(s).toContain('искомое');
    expect(s.startsWith('…')).toBe(true);
  });
  it('orders notes by frame keys first, then the rest', () => {
    const notes = [{ key: 'x' }, { key: 'pace' }, { key: 'role' }];
    expect(orderByKeys(notes, ['role', 'pace']).map((n) => n.key)).toEqual(['role', 'pace', 'x']);
  });
});
