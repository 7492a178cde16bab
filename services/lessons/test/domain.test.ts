import type { ReleaseLesson } from '@studium/contracts';
import { describe, expect, it } from 'vitest';
import {
  advanceRun,
  lessonMap,
  type Mark,
  nextStep,
  objectiveStatus,
  openGoals,
} from '../src/domain/lesson-progress.ts';
import { chooseOpening, nextOpenLesson, rankEnrollments } from '../src/domain/opening.ts';
import {
  attemptGate,
  explanationsForWrong,
  type IssuedQuestion,
  matchOption,
  objectiveResults,
  passes,
  publicQuestion,
  score,
} from '../src/domain/quiz.ts';
import { attemptFate } from '../src/domain/release-change.ts';
import { signals } from '../src/domain/signals.ts';

const item = (key: string, required = true) => ({ key, kind: 'term' as const, required, title: key, details: '' });
const LESSON: ReleaseLesson = {
  key: 'l1',
  title: 'Урок',
  hook: '',
  objectives: [
    { key: 'o1', text: 'Цель 1', items: [item('term:T1'), item('choice:C1', false)] },
    { key: 'o2', text: 'Цель 2', items: [item('execution:E1')] },
  ],
  directive: '',
  material: '',
  section_hints: {},
  homework: null,
  quiz: null,
};
const mark = (goal: string, status: Mark['status'], objective = 'o1'): [string, Mark] => [
  goal,
  {
    goal,
    objective,
    status,
    evidence: status === 'open' ? null : 'e',
    session_id: 's',
    marked_at: '2026-01-01T00:00:00Z',
  },
];

describe('lesson progress', () => {
  it('objective statuses follow the required items; optional items only touch', () => {
    const items = LESSON.objectives[0]?.items ?? [];
    expect(objectiveStatus(items, new Map())).toBe('not_started');
    expect(objectiveStatus(items, new Map([mark('choice:C1', 'not_needed')]))).toBe('touched');
    expect(objectiveStatus(items, new Map([mark('term:T1', 'planned')]))).toBe('covered');
    expect(objectiveStatus(items, new Map([mark('term:T1', 'open')]))).toBe('not_started');
    expect(objectiveStatus([item('x', false)], new Map([mark('x', 'done')]))).toBe('covered');
  });

  it('next step: open required items in order, then the quiz or complete_lesson, null when passed', () => {
    const marks = new Map([mark('execution:E1', 'done', 'o2')]);
    expect(nextStep(LESSON, marks, false)).toEqual({
      kind: 'goal',
      objective: 'o1',
      goal: 'term:T1',
      title: 'term:T1',
    });
    const all = new Map([...marks, mark('term:T1', 'done')]);
    expect(openGoals(LESSON, all)).toEqual([]);
    expect(nextStep(LESSON, all, false)).toEqual({ kind: 'complete' });
    const quiz = {
      ...LESSON,
      quiz: { required: true, pass_threshold: 0.5, attempts: null, pause_minutes: 0, questions: [q('q1', 'A')] },
    };
    expect(nextStep(quiz, all, false)).toEqual({ kind: 'quiz' });
    expect(nextStep(quiz, all, true)).toBeNull();
    expect(lessonMap(LESSON, all).map((o) => o.status)).toEqual(['covered', 'covered']);
  });

  it('the run status never goes back', () => {
    const all = new Map([mark('execution:E1', 'done', 'o2'), mark('term:T1', 'done')]);
    expect(advanceRun('not_started', LESSON, all)).toBe('covered');
    expect(advanceRun('covered', LESSON, new Map([mark('term:T1', 'open')]))).toBe('covered');
    expect(advanceRun('passed', LESSON, new Map())).toBe('passed');
    expect(advanceRun('not_started', LESSON, new Map([mark('term:T1', 'done')]))).toBe('in_progress');
  });
});

function q(key: string, correct: string, objective = 'o1'): IssuedQuestion {
  return {
    key,
    text: `Вопрос ${key}`,
    objective,
    options: [
      { id: 'A', text: 'Первый вариант' },
      { id: 'B', text: 'Второй  вариант' },
    ],
    correct,
    explanation: `Пояснение ${key}`,
  };
}

describe('quiz', () => {
  const qs = [q('q1', 'A'), q('q2', 'B', 'o2'), q('q3', 'A', 'o2')];
  it('issues questions without the correct option', () => {
    const pub = publicQuestion(qs, 1);
    expect(pub).toEqual({ id: 'q2', text: 'Вопрос q2', kind: 'choice', options: qs[1]?.options, number: 2, total: 3 });
    expect(JSON.stringify(pub)).not.toContain('correct');
    expect(publicQuestion(qs, 3)).toBeNull();
  });
  it('matches an answer by id or by text, case and spaces ignored', () => {
    const first = qs[0] as IssuedQuestion;
    expect(matchOption(first, 'a')).toBe('A');
    expect(matchOption(first, '  второй вариант ')).toBe('B');
    expect(matchOption(first, 'третий')).toBeNull();
  });
  it('scores, groups by objective, explains only wrong answers', () => {
    const answers = [
      { question: 'q1', correct: true },
      { question: 'q2', correct: false },
      { question: 'q3', correct: true },
    ];
    expect(score(qs, answers)).toBe(0.6667);
    expect(passes(0.6667, 0.67)).toBe(true);
    expect(passes(0.5, 0.67)).toBe(false);
    expect(passes(0.66, 0.67)).toBe(false);
    expect(passes(2 / 3, 2 / 3)).toBe(true);
    expect(objectiveResults(qs, answers)).toEqual([
      { objective: 'o1', correct: 1, total: 1 },
      { objective: 'o2', correct: 1, total: 2 },
    ]);
    expect(explanationsForWrong(qs, answers)).toEqual([{ question: 'q2', explanation: 'Пояснение q2' }]);
  });
  it('attempt limits and pauses; cancelled attempts count for neither', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const failed = { status: 'finished' as const, passed: false, finished_at: '2026-01-01T11:30:00Z' };
    const cancelled = { status: 'cancelled' as const, passed: null, finished_at: '2026-01-01T11:59:00Z' };
    expect(attemptGate({ attempts: 2, pause_minutes: 60 }, [], now)).toEqual({ ok: true, number: 1, attemptsLeft: 2 });
    expect(attemptGate({ attempts: 2, pause_minutes: 60 }, [failed, cancelled], now)).toEqual({
      ok: false,
      code: 'retry_too_soon',
      retryAfter: '2026-01-01T12:30:00.000Z',
    });
    expect(attemptGate({ attempts: 2, pause_minutes: 10 }, [failed, cancelled], now)).toEqual({
      ok: true,
      number: 2,
      attemptsLeft: 1,
    });
    expect(attemptGate({ attempts: 1, pause_minutes: 0 }, [failed], now)).toEqual({
      ok: false,
      code: 'quiz_attempts_exhausted',
      attemptsUsed: 1,
    });
    expect(attemptGate({ attempts: null, pause_minutes: 0 }, [failed, failed], now)).toMatchObject({
      ok: true,
      number: 3,
      attemptsLeft: null,
    });
  });
});

describe('opening and lesson choice', () => {
  const base = {
    courseSessionsBefore: false,
    lessonSessionsBefore: false,
    runStatus: 'not_started' as const,
    anyMarked: false,
    lastActivity: null,
    now: new Date('2026-01-10T00:00:00Z'),
  };
  it('picks the four openings', () => {
    expect(chooseOpening(base)).toBe('first_in_course');
    expect(chooseOpening({ ...base, courseSessionsBefore: true })).toBe('new_lesson');
    expect(
      chooseOpening({
        ...base,
        courseSessionsBefore: true,
        lessonSessionsBefore: true,
        anyMarked: true,
        lastActivity: '2026-01-09T20:00:00Z',
      }),
    ).toBe('repeat');
    expect(
      chooseOpening({ ...base, lessonSessionsBefore: true, anyMarked: true, lastActivity: '2026-01-08T00:00:00Z' }),
    ).toBe('return');
    expect(
      chooseOpening({ ...base, runStatus: 'passed', lessonSessionsBefore: true, lastActivity: '2026-01-01T00:00:00Z' }),
    ).toBe('repeat');
  });
  it('ranks enrollments: mandatory and overdue first, then the nearest deadline', () => {
    const e = (course: string, mandatory: boolean, overdue: boolean, deadline: string | null) => ({
      course,
      mandatory,
      overdue,
      deadline,
      enrolled_at: '2026-01-01T00:00:00Z',
    });
    const ranked = rankEnrollments([
      e('free', false, false, null),
      e('later', true, false, '2026-03-01T00:00:00Z'),
      e('soon', true, false, '2026-02-01T00:00:00Z'),
      e('late', false, true, '2025-12-01T00:00:00Z'),
      e('dated', false, false, '2026-01-15T00:00:00Z'),
    ]);
    expect(ranked.map((r) => r.course)).toEqual(['late', 'soon', 'later', 'dated', 'free']);
    expect(nextOpenLesson(['a', 'b', 'c'], new Set(['a', 'c']))).toBe('b');
    expect(nextOpenLesson(['a'], new Set(['a']))).toBeNull();
  });
});

describe('signals', () => {
  const base = {
    emptySessionsBefore: 0,
    objectivesTotal: 4,
    objectivesCovered: 0,
    documentUntouched: null,
    overdue: false,
    deadline: null,
    lessonsLeft: 3,
    now: new Date('2026-01-01T00:00:00Z'),
    said: [] as string[],
  };
  it('says each kind once per session, at most three', () => {
    const all = signals({
      ...base,
      emptySessionsBefore: 2,
      objectivesCovered: 2,
      documentUntouched: true,
      overdue: true,
    });
    expect(all.map((s) => s.kind)).toEqual(['abandoned_starts', 'document_not_started', 'deadline']);
    expect(signals({ ...base, emptySessionsBefore: 3, said: ['abandoned_starts'] })).toEqual([]);
    expect(signals(base)).toEqual([]);
  });
  it('a deadline that needs three lessons a week is a signal', () => {
    expect(signals({ ...base, deadline: '2026-01-05T00:00:00Z' }).map((s) => s.kind)).toEqual(['deadline']);
    expect(signals({ ...base, deadline: '2026-03-01T00:00:00Z' })).toEqual([]);
  });
});

describe('a new release and open attempts', () => {
  const changes = {
    added: [],
    removed: ['gone'],
    changed: ['quiz', 'text'],
    unchanged: ['same'],
    quiz_changed: ['quiz'],
  };
  it('moves attempts of unchanged quizzes and cancels the others', () => {
    expect(attemptFate(changes, 'same')).toEqual({ action: 'move' });
    expect(attemptFate(changes, 'text')).toEqual({ action: 'move' });
    expect(attemptFate(changes, 'quiz')).toEqual({ action: 'cancel', reason: 'quiz_changed' });
    expect(attemptFate(changes, 'gone')).toEqual({ action: 'cancel', reason: 'lesson_removed' });
  });
});
