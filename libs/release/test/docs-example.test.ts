import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { buildFromDir, formatError } from '@studium/release';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTemps, tempDir } from './support.ts';

afterAll(removeTemps);

const DOC = resolve(import.meta.dirname, '../../../docs/course-map.md');

describe('docs/course-map.md', () => {
  it('its complete example is a valid map', async () => {
    const doc = await readFile(DOC, 'utf8');
    const example = doc.slice(doc.indexOf('## A complete example'), doc.indexOf('## The release'));
    const dir = await tempDir('doc');
    const blocks = [...example.matchAll(/```(?:yaml|markdown)\n(?:# |<!-- )(\S+)(?: -->)?\n([\s\S]*?)```/g)];
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    for (const [, path, body] of blocks) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), body);
    }
    const built = await buildFromDir(dir);
    expect(built.ok ? [] : built.errors.map(formatError)).toEqual([]);
    expect(built.ok && built.summary).toMatchObject({ chapters: 1, lessons: 1, items: 4, questions: 1, sections: 2 });
  });
});
