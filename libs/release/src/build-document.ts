import type { Release } from '@studium/contracts';
import type { MapPlace } from './issues.ts';
import type { MapReader } from './reader.ts';
import { DocumentShape, SectionShape } from './schemas.ts';
import { cleanText } from './text.ts';
import type { Checked, YamlFile } from './yaml-file.ts';

type ReleaseDocument = NonNullable<Release['document']>;
type Section = ReleaseDocument['sections'][number];

/** The document as built, plus what the rest of the build checks against it. */
export interface BuiltDocument {
  document: ReleaseDocument | null;
  /** Section keys for section hints; 'none' — the map has no document.yaml; 'broken' — its keys are unknown. */
  sections: Set<string> | 'none' | 'broken';
  /** `section.lesson` references, checked once every lesson key is known. */
  lessonRefs: Array<{ lesson: string; at: MapPlace }>;
}

/** Builds document.yaml (optional) and checks its keys and column references (errors recorded in r.diag). */
export function buildDocument(r: MapReader): BuiltDocument {
  const yaml = r.yaml('document.yaml');
  if (!yaml) return { document: null, sections: 'none', lessonRefs: [] };
  const head = yaml.fields(DocumentShape).value;
  const checked = yaml.each(SectionShape, ['sections']);
  r.where.set('course#document.purpose', yaml.at(['purpose']));
  const keys = new Set<string>();
  const lessonRefs: BuiltDocument['lessonRefs'] = [];
  const sections = checked.map(({ value: s }, si): Section => {
    if (s.key !== undefined) {
      if (keys.has(s.key)) r.diag.error(yaml.at(['sections', si, 'key']), `duplicate section key '${s.key}'`);
      keys.add(s.key);
      r.where.set(`section.${s.key}#description`, yaml.at(['sections', si, 'description']));
    }
    if (s.lesson) lessonRefs.push({ lesson: s.lesson, at: yaml.at(['sections', si, 'lesson']) });
    const columns = s.columns ?? [];
    checkColumns(r, yaml, si, s.key ?? `#${si}`, columns);
    return {
      key: s.key ?? '',
      title: cleanText(s.title),
      description: cleanText(s.description),
      lesson: s.lesson ?? null,
      rows: s.rows ?? 'many',
      columns: columns.map((c) => ({ key: c.key, title: cleanText(c.title), required: c.required ?? false })),
    };
  });
  const known = checked.length > 0 && checked.every((s) => s.value.key !== undefined);
  const document = { key: head.key ?? '', title: cleanText(head.title), purpose: cleanText(head.purpose), sections };
  return { document, sections: known ? keys : 'broken', lessonRefs };
}

type Columns = NonNullable<Checked<typeof SectionShape>['value']['columns']>;

function checkColumns(r: MapReader, yaml: YamlFile, si: number, section: string, columns: Columns): void {
  const keys = columns.map((c) => c.key);
  columns.forEach((c, ci) => {
    const at = (...rest: string[]) => yaml.at(['sections', si, 'columns', ci, ...rest]);
    if (keys.indexOf(c.key) !== ci) r.diag.error(at('key'), `duplicate column key '${c.key}' in section '${section}'`);
    const req = c.required;
    if (!req || typeof req !== 'object') return;
    if (req.if_column === c.key) r.diag.error(at('required', 'if_column'), 'a column cannot depend on itself');
    else if (!keys.includes(req.if_column)) {
      r.diag.error(
        at('required', 'if_column'),
        `if_column names unknown column '${req.if_column}'; columns of section '${section}': ${keys.join(', ')}`,
      );
    }
  });
}
