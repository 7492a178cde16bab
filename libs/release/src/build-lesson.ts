import type { ReleaseLesson } from '@studium/contracts';
import { buildQuiz } from './build-quiz.ts';
import { placeText } from './issues.ts';
import type { MapReader } from './reader.ts';
import { LessonShape, ObjectiveShape } from './schemas.ts';
import type { CourseScope } from './scope.ts';
import { cleanText } from './text.ts';
import type { Checked, YamlFile } from './yaml-file.ts';

type Lesson = Checked<typeof LessonShape>['value'];

/** Builds one lesson folder (`chapters/<chapter>/<lesson>/`), recording every error in r.diag. */
export function buildLesson(r: MapReader, dir: string, key: string, scope: CourseScope): ReleaseLesson {
  const yaml = r.yaml(`${dir}/lesson.yaml`);
  if (!yaml) throw new Error(`${dir}/lesson.yaml: the caller checks that it exists`);
  const lf = yaml.fields(LessonShape).value;
  r.where.set(`lesson.${key}#hook`, yaml.at(['hook']));
  const checked = yaml.each(ObjectiveShape, ['objectives']);
  const objectives = buildObjectives(r, yaml, checked, dir, scope);
  const known = checked.length > 0 && checked.every((o) => o.value.key !== undefined);
  checkHints(r, yaml, lf, scope);
  return {
    key,
    title: cleanText(lf.title),
    hook: cleanText(lf.hook),
    objectives,
    directive: r.text(yaml, ['directive'], lf.directive, `${dir}/directive.md`),
    material: r.text(yaml, ['material'], lf.material, `${dir}/material.md`),
    section_hints: Object.fromEntries(Object.entries(lf.section_hints ?? {}).map(([k, v]) => [k, cleanText(v)])),
    homework: buildHomework(r, yaml, lf, dir),
    quiz: buildQuiz(r, `${dir}/quiz.yaml`, known ? new Set(checked.map((o) => o.value.key ?? '')) : null, scope),
  };
}

function buildObjectives(
  r: MapReader,
  yaml: YamlFile,
  checked: Array<Checked<typeof ObjectiveShape>>,
  dir: string,
  scope: CourseScope,
): ReleaseLesson['objectives'] {
  const ids = new Map<string, string>();
  const objectives = checked.map(({ value: o }, oi) => {
    if (o.key !== undefined) {
      const at = yaml.at(['objectives', oi, 'key']);
      const first = scope.objectives.get(o.key);
      if (first) r.diag.error(at, `duplicate objective key '${o.key}' (already used at ${placeText(first)})`);
      else scope.objectives.set(o.key, at);
    }
    const items = (o.items ?? []).map((item, ii) => {
      const path = ['objectives', oi, 'items', ii];
      const first = ids.get(item.id);
      if (first)
        r.diag.error(
          yaml.at([...path, 'id']),
          `duplicate item id '${item.id}' in this lesson (already used by ${first})`,
        );
      ids.set(item.id, `${item.kind}:${item.id}`);
      return {
        key: `${item.kind}:${item.id}`,
        kind: item.kind,
        required: item.required ?? true,
        title: cleanText(item.title),
        details: r.text(yaml, [...path, 'details'], item.details, `${dir}/items/${item.id}.md`),
      };
    });
    return { key: o.key ?? '', text: cleanText(o.text), items };
  });
  const itemsKnown = checked.every((o) => o.value.items !== undefined);
  for (const file of r.under(`${dir}/items`)) {
    const id = file.slice(dir.length + '/items/'.length).replace(/\.md$/, '');
    r.markdown(file);
    if (ids.has(id) || !itemsKnown) continue;
    r.diag.error(r.file(file), `no item with id '${id}' in ${dir}/lesson.yaml for these details`);
  }
  return objectives;
}

function checkHints(r: MapReader, yaml: YamlFile, lf: Lesson, scope: CourseScope): void {
  for (const section of Object.keys(lf.section_hints ?? {})) {
    const at = yaml.at(['section_hints', section], { key: true });
    if (scope.sections === 'none')
      r.diag.error(at, `hint for section '${section}', but the course has no document.yaml`);
    else if (scope.sections !== 'broken' && !scope.sections.has(section)) {
      r.diag.error(at, `unknown section '${section}'; sections of the document: ${[...scope.sections].join(', ')}`);
    }
  }
}

function buildHomework(r: MapReader, yaml: YamlFile, lf: Lesson, dir: string): ReleaseLesson['homework'] {
  const md = `${dir}/homework.md`;
  if (!lf.homework) {
    // Broken YAML (data undefined) says nothing about homework: its own error is enough.
    if (r.markdown(md) !== null && yaml.data !== undefined && yaml.get(['homework']) == null) {
      r.diag.error(r.file(md), 'homework.md without homework in lesson.yaml (add homework: with answer_mode)');
    }
    return null;
  }
  const description = r.text(yaml, ['homework', 'description'], lf.homework.description, md);
  if (!description) {
    r.diag.error(yaml.at(['homework']), 'homework needs a description: homework.description or homework.md');
  }
  return { description, answer_mode: lf.homework.answer_mode, due_days: lf.homework.due_days ?? null };
}
