import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMON_REFUSALS, curatorTools, EVENTS_STREAM, events, studentTools, type ToolContract } from '../src/index.ts';

const all: readonly ToolContract[] = [...studentTools, ...curatorTools];
const byName = new Map(all.map((t) => [t.name, t]));

/** Required parameters of every tool, as the spec marks them «Обязательный». */
const REQUIRED: Record<string, readonly string[]> = {
  artifact: ['course'],
  choose: ['prompt', 'options'],
  complete_lesson: ['session'],
  course_outline: ['course'],
  enroll: ['course'],
  fill_document: ['course'],
  forget: ['key'],
  get_my_progress: [],
  lesson_item: ['session', 'goal'],
  list_catalog: [],
  list_my_courses: [],
  mark_goal: ['session', 'goal', 'status'],
  my_homework: [],
  my_notes: [],
  my_reports: [],
  notify_when_released: ['course'],
  org_report: [],
  remember: ['kind', 'key', 'text'],
  report_issue: ['session', 'kind', 'text'],
  request_quiz: ['session'],
  set_space: ['space'],
  start_lesson: [],
  store_homework_file: ['lesson', 'files'],
  student_detail: ['user'],
  submit_answer: ['attempt', 'question', 'answer', 'student_words'],
  submit_homework: ['lesson', 'answer'],
  update_artifact: ['course', 'artifact', 'key'],
  upload_homework_file: ['lesson'],
  whoami: [],
  add_note: ['course', 'target', 'text'],
  announce_course: ['course'],
  course_notes: ['course'],
  course_release: ['course'],
  course_releases: ['course'],
  course_reports: ['course'],
  create_course: ['title', 'summary'],
  goal_runs: ['course'],
  list_courses: [],
  publish_course: ['course'],
  reply_note: ['note', 'text'],
  resolve_note: ['note', 'comment'],
  resolve_report: ['report', 'status'],
  unpublish_course: ['course'],
  update_course: ['course'],
  homework_queue: [],
  homework_submission: ['submission'],
  return_homework: ['submission', 'comment'],
  accept_homework: ['submission'],
  cancel_acceptance: ['submission', 'comment'],
};

/** Required parameters whose absence the spec refuses with the tool's own code (the service answers it). */
const OWN_CODE_WHEN_MISSING: Record<string, string> = {
  submit_answer: 'student_words',
  store_homework_file: 'files',
};

/** A sample value of the right JSON type for a parameter. */
function sample(param: string): unknown {
  if (param === 'options') return ['Да', 'Нет'];
  if (param === 'files') return [{ name: 'a.txt', content: 'YQ==' }];
  return 'x';
}

function minimalArgs(name: string): Record<string, unknown> {
  return Object.fromEntries((REQUIRED[name] ?? []).map((p) => [p, sample(p)]));
}

function tool(name: string): ToolContract {
  const t = byName.get(name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

describe('tool catalog', () => {
  it('has 29 student and 15 curator tools, then the 5 of homework review', () => {
    expect(studentTools).toHaveLength(29);
    expect(curatorTools).toHaveLength(20);
    expect(curatorTools.slice(15).map((t) => t.name)).toEqual([
      'homework_queue',
      'homework_submission',
      'return_homework',
      'accept_homework',
      'cancel_acceptance',
    ]);
  });

  it('lists student tools alphabetically, as the overview table', () => {
    const names = studentTools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
  });

  it('has unique names', () => {
    expect(new Set(all.map((t) => t.name)).size).toBe(all.length);
  });

  it('puts every tool on its surface', () => {
    for (const t of studentTools) expect(t.surface).toBe('student');
    for (const t of curatorTools) expect(t.surface).toBe('curator');
  });

  it('derives the subject from service and name', () => {
    for (const t of all) expect(t.subject).toBe(`${t.service}.${t.name}`);
  });

  it('has a non-empty Russian title and description for every tool', () => {
    for (const t of all) {
      expect(t.title.trim(), t.name).not.toBe('');
      expect(t.description.trim(), t.name).not.toBe('');
      expect(t.description, t.name).toMatch(/[А-Яа-яЁё]/);
      expect(t.title, t.name).toMatch(/[А-Яа-яЁё]/);
    }
  });

  // Spec 000 makes every parameter part of the contract. A parameter's own description is dropped
  // where the tool's description already says what it is (issue 31: tools/list is read into every
  // conversation), so each one is explained in one of the two places.
  it('explains every input parameter, in Russian: in its own description or by name in the tool’s', () => {
    for (const t of all) {
      const json = z.toJSONSchema(t.input, { io: 'input' }) as {
        properties?: Record<string, { description?: string }>;
      };
      for (const param of Object.keys(t.input.shape)) {
        const own = json.properties?.[param]?.description ?? '';
        const named = new RegExp(`(^|[^a-z_])${param}([^a-z_]|$)`).test(t.description);
        expect(/[А-Яа-яЁё]/.test(own) || named, `${t.name}.${param}`).toBe(true);
      }
    }
  });

  it('does not repeat the required flag in words: the schema’s required list carries it', () => {
    for (const t of all) {
      const json = z.toJSONSchema(t.input, { io: 'input' }) as {
        properties?: Record<string, { description?: string }>;
        required?: string[];
      };
      for (const [param, schema] of Object.entries(json.properties ?? {})) {
        // The one exception: a parameter the spec requires whose absence the service refuses with
        // its own code, so the schema cannot require it (OWN_CODE_WHEN_MISSING).
        const words = /Обязательный|Необязательный/.test(schema.description ?? '');
        expect(words, `${t.name}.${param}`).toBe(OWN_CODE_WHEN_MISSING[t.name] === param);
      }
    }
  });

  it('has a z.object input and an object-typed output schema (MCP)', () => {
    for (const t of all) {
      expect(t.input, t.name).toBeInstanceOf(z.ZodObject);
      expect((z.toJSONSchema(t.output) as { type?: string }).type, t.name).toBe('object');
      expect((z.toJSONSchema(t.input, { io: 'input' }) as { type?: string }).type, t.name).toBe('object');
    }
  });

  it('has a required-parameter table entry for every tool', () => {
    expect(Object.keys(REQUIRED).sort()).toEqual(all.map((t) => t.name).sort());
  });

  it('accepts {} plus the required arguments', () => {
    for (const t of all) {
      const r = t.input.safeParse(minimalArgs(t.name));
      expect(r.success, `${t.name}: ${r.error?.message}`).toBe(true);
    }
  });

  it('rejects a call missing a required argument, except one the service refuses with its own code', () => {
    for (const t of all) {
      for (const p of REQUIRED[t.name] ?? []) {
        if (OWN_CODE_WHEN_MISSING[t.name] === p) continue;
        const args = minimalArgs(t.name);
        delete args[p];
        expect(t.input.safeParse(args).success, `${t.name} without ${p}`).toBe(false);
      }
    }
  });

  it('has unique refusal codes per tool', () => {
    for (const t of all) expect(new Set(t.refusals).size, t.name).toBe(t.refusals.length);
  });

  it('keeps shared refusal codes spelled as in common.ts', () => {
    const common = new Set<string>(COMMON_REFUSALS);
    const seen = new Set(all.flatMap((t) => t.refusals));
    for (const code of common) expect(seen.has(code), code).toBe(true);
  });
});

describe('refusal codes from the spec', () => {
  it.each([
    ['mark_goal', ['goal_status_unknown', 'evidence_too_long', 'evidence_required', 'not_needed_required', 'busy']],
    ['enroll', ['program_order', 'course_upcoming', 'already_enrolled']],
    ['add_note', ['invalid_target', 'note_target_unknown', 'course_not_released']],
    ['submit_answer', ['quiz_attempt_cancelled', 'student_words_required', 'attempt_finished']],
    ['request_quiz', ['goals_open', 'retry_too_soon', 'quiz_attempts_exhausted']],
    ['complete_lesson', ['goals_open', 'quiz_required', 'run_archived']],
    ['start_lesson', ['nothing_to_study', 'web_demo_exhausted', 'unknown_channel']],
    ['update_artifact', ['artifact_invalid_value', 'artifact_nothing_to_write', 'artifact_wrong_section']],
    ['store_homework_file', ['invalid_files', 'file_missing', 'accepted_locked']],
    ['resolve_report', ['invalid_report_transition', 'duplicate_of_required', 'invalid_duplicate_of']],
    ['update_course', ['course_from_release', 'course_has_content']],
    ['goal_runs', ['invalid_page', 'course_not_released']],
    ['set_space', ['space_not_available']],
    ['student_detail', ['not_your_student']],
  ] as const)('%s refuses with %j', (name, codes) => {
    expect(tool(name).refusals).toEqual(expect.arrayContaining([...codes]));
  });

  it('gives the read-only chain tools no busy or run_archived', () => {
    for (const name of ['course_outline', 'lesson_item']) {
      expect(tool(name).refusals).not.toContain('busy');
      expect(tool(name).refusals).not.toContain('run_archived');
    }
  });

  it('gives store_homework_file the refusals of submit_homework', () => {
    expect([...tool('store_homework_file').refusals].sort()).toEqual([...tool('submit_homework').refusals].sort());
  });

  it('names every refusal code of a tool in its description', () => {
    for (const t of all) {
      const missing = t.refusals.filter((code) => !new RegExp(`(^|[^a-z_])${code}([^a-z_]|$)`).test(t.description));
      expect(missing, t.name).toEqual([]);
    }
  });

  it.each([
    ['request_quiz', 'session_closed'],
    ['submit_answer', 'run_archived'],
    ['remember', 'note_text_required'],
    ['store_homework_file', 'not_enrolled'],
  ] as const)('%s declares %s, which its service returns', (name, code) => {
    expect(tool(name).refusals).toContain(code);
  });

  it('gives tools without own refusals an empty list', () => {
    for (const name of ['choose', 'get_my_progress', 'list_catalog', 'my_notes', 'whoami', 'create_course']) {
      expect(tool(name).refusals, name).toEqual([]);
    }
  });
});

describe('inputs let through values the service refuses itself', () => {
  it.each([
    [
      'mark_goal',
      { session: 's', goal: 'g', status: 'finished', evidence: 'x'.repeat(2000), resume_from: 'y'.repeat(900) },
    ],
    ['remember', { kind: 'hobby', key: '', text: 't' }],
    ['report_issue', { session: 's', kind: 'angry', text: '' }],
    ['goal_runs', { course: 'c', start: -1, limit: '1.5' }],
    ['update_artifact', { course: 'c', artifact: 'a', key: 'k', rows: 'not a list', fields: [1, 2], delete_rows: {} }],
    ['store_homework_file', { lesson: 'l', files: 'garbage' }],
    ['course_reports', { course: 'c', kind: 'nope', status: 'weird' }],
    ['course_notes', { course: 'c', status: null }],
    ['resolve_report', { report: '12', status: 'closed', duplicate_of: 7 }],
    ['submit_answer', { attempt: 'a', question: 'q', answer: 'V2', student_words: '' }],
    ['submit_answer', { attempt: 'a', question: 'q', answer: 'V2' }],
    ['store_homework_file', { lesson: 'l' }],
    ['update_artifact', { course: 'c', artifact: 'a', key: 'k', clear: 'yes' }],
    ['update_artifact', { course: 'c', artifact: 'a', key: 'k', fields: { lead: 'я'.repeat(40_001) } }],
    ['update_artifact', { course: 'c', artifact: 'a', key: 'k', rows: [{ topic: 'я'.repeat(40_001) }] }],
  ] as const)('%s accepts %j', (name, args) => {
    expect(tool(name).input.safeParse(args).success).toBe(true);
  });

  it('rejects a wrong JSON type', () => {
    expect(tool('mark_goal').input.safeParse({ session: 's', goal: 'g', status: 1 }).success).toBe(false);
    expect(tool('notify_when_released').input.safeParse({ course: 'c', notify: 'no' }).success).toBe(false);
  });
});

describe('annotations', () => {
  const READ_ONLY = [
    'artifact',
    'course_outline',
    'get_my_progress',
    'lesson_item',
    'list_catalog',
    'list_my_courses',
    'my_homework',
    'my_notes',
    'my_reports',
    'org_report',
    'student_detail',
    'whoami',
    'choose',
    'fill_document',
    'upload_homework_file',
    'course_notes',
    'course_release',
    'course_releases',
    'course_reports',
    'goal_runs',
    'list_courses',
    'homework_queue',
    'homework_submission',
  ];

  it('marks exactly the reading tools read-only', () => {
    for (const t of all) expect(t.annotations.readOnlyHint, t.name).toBe(READ_ONLY.includes(t.name));
  });

  it('marks forget, unpublish_course and update_artifact destructive', () => {
    const destructive = all.filter((t) => t.annotations.destructiveHint).map((t) => t.name);
    expect(destructive.sort()).toEqual(['forget', 'unpublish_course', 'update_artifact']);
  });

  it('never claims an open world', () => {
    for (const t of all) expect(t.annotations.openWorldHint, t.name).toBe(false);
  });
});

describe('events', () => {
  it('names the stream and subjects evt.<service>.<event>', () => {
    expect(EVENTS_STREAM).toBe('STUDIUM_EVENTS');
    for (const [key, e] of Object.entries(events)) {
      expect(e.subject).toBe(`evt.${key}`);
      expect(key).toBe(`${e.service}.${e.name}`);
    }
  });

  it('parses a release_published payload', () => {
    const r = events['courses.release_published'].payload.safeParse({
      course: 'c',
      release: 'r',
      version: 3,
      digest: 'sha256:abc',
      lessons: { added: ['l4'], removed: [], changed: ['l2'], unchanged: ['l1', 'l3'] },
      at: '2025-01-01T00:00:00Z',
    });
    expect(r.success).toBe(true);
  });
});
