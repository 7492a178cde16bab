import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildFromDir, loadAnnouncements, loadPrograms } from '@studium/release';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, removeTemps, tempDir } from './support.ts';

afterAll(removeTemps);

describe('programs.yaml and announcements.yaml', () => {
  it('chain the two demo courses in order and announce a third one', async () => {
    const programs = await loadPrograms(join(EXAMPLES, 'programs.yaml'));
    expect(programs).toEqual([
      expect.objectContaining({
        key: 'negotiation-track',
        ordered: true,
        courses: ['negotiation-basics', 'negotiation-advanced'],
      }),
    ]);
    for (const key of programs[0].courses) {
      const built = await buildFromDir(join(EXAMPLES, key));
      expect(built.ok && built.release.course.key).toBe(key);
    }
    const [announced] = await loadAnnouncements(join(EXAMPLES, 'announcements.yaml'));
    expect(announced.key).toBe('negotiation-conflicts');
    expect(announced.objectives.length).toBeGreaterThanOrEqual(3);
    expect(programs[0].courses).not.toContain(announced.key);
  });

  it('rejects a bad programs file with located errors', async () => {
    const file = join(await tempDir('catalog'), 'programs.yaml');
    const text =
      'programs:\n  - key: p\n    title: П\n    courses: [a, b]\n  - key: p\n    title: Q\n    ordered: true\n    courses: [a]\n';
    await writeFile(file, text);
    await expect(loadPrograms(file)).rejects.toThrow(
      'programs.yaml:2:5: programs[0].ordered: required field is missing\n' +
        'programs.yaml:8:14: programs[1].courses: a program chains at least two courses\n' +
        "programs.yaml:5:10: programs[1].key: duplicate key 'p'",
    );
  });
});
