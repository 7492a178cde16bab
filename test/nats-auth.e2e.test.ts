// Issue 17.1, deployment half: nats-server with a user per service and subject permissions (the
// generated config of scripts/nats-auth.ts). Services run as their own processes with their own
// NATS user, as in deployment, ai-chat among them (pointed at a scripted model), so the tutor's
// turn crosses the bus as it does in deployment: frames to the edge's inbox, control messages and
// tool results to ai-chat's, the tool calls from the edge to lessons.
import { resolve } from 'node:path';
import { create_course, releaseContent } from '@studium/contracts';
import { createBus, createLogger, openDatabase } from '@studium/platform';
import { EDGE_TRUST, eventually, type LlmRequest } from '@studium/testing';
import { sql } from 'kysely';
import { ErrorCode, type NatsConnection, type NatsError } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as releaseCli } from '../scripts/release.ts';
import { HomeworkFiles } from '../services/edge/src/mcp/homework-store.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { FileStore } from '../services/homework/src/file-store.ts';
import { answerText, sendMessage, shape } from './support/ai-chat.ts';
import { connectAgent, data } from './support/clients.ts';
import { CURATOR, copyMap, EXAMPLES, editMap, publishMap } from './support/lessons.ts';
import { startNatsUsersStack } from './support/nats-users.ts';
import { scriptedTutor } from './support/scripted-tutor.ts';
import { passLesson, type QuizKey, quizKey } from './support/teach.ts';
import { type TutorEvent, tutorTurn } from './support/tutor.ts';

let stack: Awaited<ReturnType<typeof startNatsUsersStack>>;
let prefix: string;
let operator: NatsConnection;
let edgeUrl: string;
let token: string;
let tutorToken: string;
let teacherToken: string;
let managerToken: string;
let database: ReturnType<typeof openDatabase<EnrollmentDb>>;
let admin: EnrollmentAdmin;
let curatorToken: string;
let course: string;
let key: QuizKey;

beforeAll(async () => {
  stack = await startNatsUsersStack('na');
  ({ prefix, edgeUrl } = stack);
  operator = await stack.connectAs('operator');
  database = openDatabase<EnrollmentDb>(stack.databaseUrl, 'enrollment', 1);
  admin = new EnrollmentAdmin(database.db, { nc: operator, prefix });
  await admin.upsertUser('student@test', 'Анна', ['Student']);
  await admin.upsertUser(CURATOR.user, CURATOR.full_name, CURATOR.roles);
  token = (await admin.issueToken('student@test')).token;
  // The tutor's student, as the demo's: a Student with an API token for /v1/tutor and /mcp.
  await admin.upsertUser('tutor@test', 'Борис', ['Student']);
  tutorToken = (await admin.issueToken('tutor@test')).token;
  await admin.upsertUser('teacher@test', 'Вера', ['Teacher']);
  teacherToken = (await admin.issueToken('teacher@test')).token;
  // An organization whose manager reads org_report on the student.
  await admin.upsertOrganization('acme', 'Акме');
  await admin.addMember('acme', 'student@test', 'member');
  await admin.upsertUser('manager@test', 'Глеб', ['Student', 'Manager']);
  await admin.addMember('acme', 'manager@test', 'manager');
  managerToken = (await admin.issueToken('manager@test')).token;
  curatorToken = (await admin.issueToken(CURATOR.user)).token;
  // The operator's CLI holds the edge's key, as `studium release publish` in deployment.
  const bus = createBus(operator, {
    prefix,
    timeoutMs: 20_000,
    log: createLogger('operator', 'silent'),
    trust: EDGE_TRUST,
  });
  course = (await publishMap(bus, resolve(EXAMPLES, 'negotiation-basics'))).course;
  await admin.allowCourse('acme', course);
  const content = await bus.request(releaseContent, null, { course });
  if (!content.ok) throw new Error(content.error.code);
  key = quizKey(content.data.content);
  const tutorAgent = await connectAgent('v2', `${edgeUrl}/mcp`, tutorToken);
  try {
    await eventually(async () => data(await tutorAgent.callTool('enroll', { course })));
  } finally {
    await tutorAgent.close();
  }
}, 120_000);

afterAll(async () => {
  await database?.close();
  await operator?.drain().catch(() => {});
  await stack?.close();
});

/** The text of a tutor turn: its content events joined. */
const text = (events: TutorEvent[]) =>
  events
    .filter((e) => e.type === 'content')
    .map((e) => e.content)
    .join('');

/** The server's permission violations since `from` (a log mark), less the deliberate ones of the first test. */
async function undeliberateViolations(from = 0): Promise<string[]> {
  const violations = await stack.violations(from);
  const deliberate = [`${prefix}.courses.create_course`, `${prefix}.courses.>`, '_INBOX_edge.>', '>'].map(
    (s) => `User "lessons", Subject "${s}"`,
  );
  return violations.filter((l) => !deliberate.some((d) => l.includes(d)));
}

describe('NATS users and subject permissions', () => {
  it('keep a service to its own subjects: no tool subject of another service, no one else’s requests or replies', async () => {
    const lessons = await stack.connectAs('lessons');
    try {
      const err = await lessons
        .request(`${prefix}.${create_course.subject}`, JSON.stringify({ args: { title: 'x', summary: 'y' } }), {
          timeout: 3000,
        })
        .then(
          () => null,
          (e: NatsError) => e,
        );
      expect(err?.code).toBe(ErrorCode.PermissionsViolation);
      // Subscribing to another service's requests (to read the edge's tokens) or to the edge's
      // replies is refused by the server too.
      for (const subject of [`${prefix}.courses.>`, '_INBOX_edge.>', '>']) {
        const sub = lessons.subscribe(subject);
        const closed = await Promise.race([
          sub.closed.then(() => 'closed'),
          new Promise((r) => setTimeout(r, 3000, 'open')),
        ]);
        expect(closed, subject).toBe('closed');
      }
    } finally {
      await lessons.close().catch(() => {});
    }
    const log = (await stack.violations()).join('\n');
    expect(log).toContain(`Publish Violation - User "lessons", Subject "${prefix}.courses.create_course"`);
  });

  it('let the edge put homework files into the object store and homework check and remove them', async () => {
    const edge = await stack.connectAs('edge');
    const homework = await stack.connectAs('homework');
    try {
      const staged = await new HomeworkFiles(edge, prefix, 'x'.repeat(32)).stage([
        { name: 'notes.txt', content: Buffer.from('конспект').toString('base64') },
      ]);
      const object = (staged[0] as { object: string }).object;
      const store = new FileStore(homework, prefix);
      expect(await store.info(object)).toMatchObject({ size: Buffer.byteLength('конспект') });
      expect((await store.list()).map((o) => o.name)).toContain(object);
      await store.discard([object]);
      expect(await store.info(object)).toBeNull();
    } finally {
      await edge.close();
      await homework.close();
    }
  });

  it('let the platform work end to end: whoami, enroll, course_outline and start_lesson through the edge', async () => {
    const agent = await connectAgent('v2', `${edgeUrl}/mcp`, token);
    try {
      expect(data(await agent.callTool('whoami', {}))).toMatchObject({ user: 'student@test' });
      const enrolled = await eventually(async () => data(await agent.callTool('enroll', { course })));
      expect(enrolled).toMatchObject({ course });
      // lessons asks enrollment (with the student's signed principal passed on) and courses.
      const outline = data(await agent.callTool('course_outline', { course }));
      expect(outline).toMatchObject({ course });
      // start_lesson's fan-out: lessons asks homework, knowledge and courses for its context.
      const lesson = data(await agent.callTool('start_lesson', { course, frame: false }));
      expect(lesson.session).toEqual(expect.any(String));
      // homework answered: the lesson's artifact blocks come from it.
      expect(lesson.artifact_blocks).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'case' })]));
    } finally {
      await agent.close();
    }
    // Only the deliberate violations of the test above: the platform itself needed nothing else.
    expect(await undeliberateViolations()).toEqual([]);
  });

  it('let the tutor teach a lesson: ai-chat’s turn, its frames to the edge, the tool calls the edge runs for the student', async () => {
    const mark = await stack.logMark();
    const lesson = `${course}.interests`;
    // start_lesson in channel web, lesson_item and mark_goal for each item, request_quiz, the
    // question shown; each next turn answers it (submit_answer) until the quiz is passed.
    stack.llm.script(scriptedTutor({ start: { lesson } }));
    const first = await tutorTurn(edgeUrl, tutorToken, { message: 'Здравствуйте!', lesson });
    // A refused subscription or publish breaks the turn: name it rather than the turn's error.
    expect(await undeliberateViolations(mark)).toEqual([]);
    expect(first.status).toBe(200);
    expect(first.events.at(-1)).toMatchObject({ type: 'done' });
    expect(first.events[0]).toMatchObject({ type: 'metadata', conversation_id: expect.any(String) });
    const conversation = first.events[0]?.conversation_id as string;
    expect(first.events.find((e) => e.tool === 'start_lesson')).toMatchObject({ lesson: { number: 2 } });
    expect(first.events.filter((e) => e.tool === 'mark_goal').length).toBeGreaterThan(0);
    let question = first.events.find((e) => e.tool === 'request_quiz')?.question as { id: string; text: string };
    expect(text(first.events)).toContain('Открываю урок.');
    expect(text(first.events)).toContain(question.text);
    let last = first;
    for (let turns = 0; question && turns < 10; turns++) {
      last = await tutorTurn(edgeUrl, tutorToken, {
        message: key.get(question.id)!.right,
        conversation_id: conversation,
      });
      expect(last.events.at(-1)).toMatchObject({ type: 'done' });
      const answered = last.events.find((e) => e.tool === 'submit_answer') as TutorEvent & {
        verdict: { correct: boolean };
        question: { id: string; text: string } | null;
      };
      expect(answered.verdict.correct).toBe(true);
      question = answered.question as { id: string; text: string };
    }
    expect(text(last.events)).toContain('урок пройден');

    // The tools really ran in lessons, for this student, in the web session.
    const lessons = openDatabase(stack.databaseUrl, 'lessons', 1);
    try {
      const marks = await sql<{ status: string; channel: string }>`
        select m.status, s.channel from goal_marks m join sessions s on s.id = m.session_id
        where s.user_id = ${'tutor@test'}`.execute(lessons.db);
      expect(marks.rows.length).toBe(first.events.filter((e) => e.tool === 'mark_goal').length);
      expect(new Set(marks.rows.map((r) => `${r.status} ${r.channel}`))).toEqual(new Set(['done web']));
      const attempts = await sql<{ passed: boolean }>`
        select passed from quiz_attempts where user_id = ${'tutor@test'}`.execute(lessons.db);
      expect(attempts.rows).toEqual([{ passed: true }]);
    } finally {
      await lessons.close();
    }
    // ai-chat kept the conversation, read back through the edge.
    const res = await fetch(`${edgeUrl}/v1/tutor/conversations/${conversation}/messages?page_size=100`, {
      headers: { authorization: `Bearer ${tutorToken}` },
    });
    expect(res.status).toBe(200);
    const items = ((await res.json()) as { items: Array<{ role: string; view?: { tool: string } }> }).items;
    expect(items.filter((m) => m.role === 'tool').map((m) => m.view?.tool)).toContain('submit_answer');
    // No user was refused anything: not the edge's inbox for the frames, not ai-chat's for the
    // control messages and tool results (a default `_INBOX.` inbox of either is refused here).
    expect(await undeliberateViolations(mark)).toEqual([]);
  });

  it('let the tutor’s other tools run for the student: remember in knowledge, update_artifact in homework, report_issue in courses', async () => {
    const mark = await stack.logMark();
    const lesson = `${course}.why-prepare`;
    const toolData = (req: LlmRequest) =>
      req.body.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content ?? '{}'));
    stack.llm.script((req) => {
      const replies = toolData(req);
      if (replies.length === 0) return { toolCalls: [{ name: 'start_lesson', arguments: { lesson } }] };
      const session = replies[0].session as string;
      if (replies.length > 1) return { chunks: ['Записал.'] };
      return {
        toolCalls: [
          { name: 'remember', arguments: { kind: 'observation', key: 'pace', text: 'Сразу свой случай', session } },
          {
            name: 'update_artifact',
            arguments: { course, artifact: 'negotiation_plan', key: 'case', fields: { counterpart: 'Поставщик' } },
          },
          { name: 'report_issue', arguments: { session, kind: 'material_issue', text: 'Опечатка в примере' } },
        ],
      };
    });
    const turn = await tutorTurn(edgeUrl, tutorToken, { message: 'Начнём', lesson });
    expect(await undeliberateViolations(mark)).toEqual([]);
    expect(turn.events.at(-1)).toMatchObject({ type: 'done' });
    expect(text(turn.events)).toBe('Записал.');
    // The model read each tool's own answer, not a refusal or a failure's phrase.
    const [started, remembered, artifact, report] = toolData(stack.llm.requests.at(-1)!);
    expect(started).toMatchObject({ session: expect.any(String) });
    expect(remembered).toMatchObject({ key: 'pace', kind: 'observation' });
    // counterpart written; subject, the other required cell, still empty.
    expect(artifact).toMatchObject({ artifact: 'negotiation_plan', key: 'case', empty_cells: [{ field: 'subject' }] });
    expect(report).toMatchObject({ report: expect.any(Number), kind: 'material_issue' });
  });

  it('let a teacher’s chat answer stream from ai-chat to the edge, as the tutor’s turns do', async () => {
    const mark = await stack.logMark();
    stack.llm.script({ chunks: ['Начните ', 'с пиццы.'] });
    const res = await sendMessage(edgeUrl, teacherToken, { message: 'Как объяснить дроби?' });
    expect(await undeliberateViolations(mark)).toEqual([]);
    expect(res.status).toBe(200);
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'ai_message_id', 'done']);
    expect(answerText(res.events)).toBe('Начните с пиццы.');
  });
  it('let a homework upload reach homework: a passed lesson assigns it, store_homework_file stores a file version', async () => {
    const mark = await stack.logMark();
    const agent = await connectAgent('v2', `${edgeUrl}/mcp`, token);
    try {
      const lesson = `${course}.opening`;
      await passLesson(agent, { lesson }, { quiz: key });
      const stored = await eventually(
        async () =>
          data(
            await agent.callTool('store_homework_file', {
              lesson,
              files: [{ name: 'plan.txt', content: Buffer.from('план встречи').toString('base64') }],
            }),
          ),
        15_000,
      );
      expect((stored.submission as { files: Array<{ name: string }> }).files.map((f) => f.name)).toEqual(['plan.txt']);
    } finally {
      await agent.close();
    }
    expect(await undeliberateViolations(mark)).toEqual([]);
  });

  it('let a release e-mail go out: announce, subscribe, publish, one mail to the subscriber through the mailer', async () => {
    const mark = await stack.logMark();
    const curator = await connectAgent('v2', `${edgeUrl}/authoring`, curatorToken);
    const student = await connectAgent('v2', `${edgeUrl}/mcp`, token);
    try {
      const announced = String(
        data(await curator.callTool('create_course', { title: 'Курс с рассылкой', summary: 'Проверка писем.' })).course,
      );
      data(await curator.callTool('announce_course', { course: announced, objectives: ['Получить письмо'] }));
      await admin.allowCourse('acme', announced);
      await eventually(async () => data(await student.callTool('notify_when_released', { course: announced })));
      // The pipeline CLI as the operator runs it (its NATS user, the edge's key).
      const map = await copyMap('negotiation-advanced');
      await editMap(map, 'course.yaml', 'key: negotiation-advanced', 'key: mail-check');
      const out: string[] = [];
      const io = {
        out: (l: string) => out.push(l),
        err: (l: string) => out.push(l),
        env: { ...process.env, SUBJECT_PREFIX: prefix, ...stack.env.natsEnv('operator') },
      };
      expect(
        await releaseCli(['publish', map, '--attach', announced, '--publisher', CURATOR.user], io),
        out.join('\n'),
      ).toBe(0);
      expect(data(await curator.callTool('publish_course', { course: announced }))).toMatchObject({ notified: 1 });
      const mail = await eventually(async () => {
        const m = stack.smtp.messages.find((x) => x.to.includes('student@test'));
        if (!m) throw new Error('no e-mail yet');
        return m;
      }, 20_000);
      // The release names the course by its map's title.
      expect(mail.subject).toContain('Трудные рабочие переговоры');
    } finally {
      await curator.close();
      await student.close();
    }
    expect(await undeliberateViolations(mark)).toEqual([]);
  });

  it('let a manager read org_report, built by reporting from the events', async () => {
    const mark = await stack.logMark();
    // An employee the organization assigns the course to: enrollment's event reaches reporting.
    await admin.upsertUser('worker@test', 'Дана', ['Student']);
    await admin.addMember('acme', 'worker@test', 'member');
    await admin.assignCourse('acme', 'worker@test', course, { mandatory: true });
    const manager = await connectAgent('v2', `${edgeUrl}/mcp`, managerToken);
    try {
      const report = await eventually(async () => {
        const r = data(await manager.callTool('org_report', {}));
        const rows = (r.rows ?? []) as Array<{ user: string }>;
        if (!rows.some((row) => row.user === 'worker@test')) throw new Error('the employee is not in the report yet');
        return r;
      }, 20_000);
      expect(JSON.stringify(report.organizations)).toContain('acme');
    } finally {
      await manager.close();
    }
    expect(await undeliberateViolations(mark)).toEqual([]);
  });
});
