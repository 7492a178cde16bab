// One pass over every surface of a running platform through its public doors, as its users meet
// them: the smoke tests of what ships (the compiled image layout, `npm start`) share it.
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually, type LlmRequest, type LlmScript, type ScriptedLlm } from '@studium/testing';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { answerText, sendMessage } from './ai-chat.ts';
import { type AgentClient, connectAgent, data } from './clients.ts';
import type { SmtpSink } from './mailer.ts';
import { scriptedTutor } from './scripted-tutor.ts';
import { tutorTurn } from './tutor.ts';

/** What the smoke needs of a running platform. */
export interface Platform {
  base: string;
  /** The demo tokens (npm start's demo-tokens.json, or scripts/seed's). */
  tokens: Record<'student' | 'manager' | 'curator' | 'teacher', string>;
  /** Web sign-in passwords by login. */
  passwords: Record<string, string>;
  llm: ScriptedLlm;
  smtp: SmtpSink;
  /** Runs the admin CLI (`studium …`) against the platform, as its operator would. */
  cli(args: string[]): Promise<string>;
  browser: Browser;
}

const STUDENT = 'student@demo.studium';
const EXAMPLE = resolve(import.meta.dirname, '../../examples/negotiation-advanced');

/** A copy of a demo map under a course key of its own, for a release the demo did not publish. */
async function smokeMap(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'studium-smoke-map-')), 'smoke-release');
  await cp(EXAMPLE, dir, { recursive: true });
  const file = join(dir, 'course.yaml');
  const yaml = (await readFile(file, 'utf8'))
    .replace(/^key: .*$/m, 'key: smoke-release')
    .replace(/^title: .*$/m, 'title: Смоук-курс релиза');
  await writeFile(file, yaml);
  return dir;
}

/**
 * The scripted model for both assistants: the tutor (a request that offers tools) teaches with
 * tool calls; the teacher's chat gets a plain answer.
 */
function model(lesson: string): (req: LlmRequest, index: number) => LlmScript {
  const tutor = scriptedTutor({ start: { lesson } });
  return (req) => (req.body.tools?.length ? tutor(req) : { chunks: ['Смоук-ответ ', 'ассистента.'] });
}

async function agent(p: Platform, path: string, token: string): Promise<AgentClient> {
  return connectAgent('v2', `${p.base}${path}`, token);
}

/** Signs in on /login in a fresh browser context and opens `path`; the page once its app rendered. */
async function openSignedIn(p: Platform, login: string, path: string): Promise<Page> {
  const context = await p.browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(`${p.base}/login?next=${encodeURIComponent(path)}`);
  expect(res?.status(), path).toBe(200);
  await page.fill('#login', login);
  await page.fill('#password', p.passwords[login] ?? '');
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('#submit')]);
  await waitForApp(page, errors);
  return page;
}

/** Waits until the page's app has rendered into #app, with no script error on the way. */
async function waitForApp(page: Page, errors: string[]): Promise<void> {
  await page.waitForFunction(() => (document.querySelector('#app')?.children.length ?? 0) > 0, null, {
    timeout: 15_000,
  });
  expect(errors).toEqual([]);
}

/** Drives every surface once; each step fails the test with what it met. */
export async function driveSurfaces(p: Platform): Promise<void> {
  const student = await agent(p, '/mcp', p.tokens.student);
  const curator = await agent(p, '/authoring', p.tokens.curator);
  const manager = await agent(p, '/mcp', p.tokens.manager);
  const kb = await agent(p, '/kb', p.tokens.student);
  try {
    // /mcp: who the student is, and a lesson of the course the demo organization assigned.
    expect(data(await student.callTool('whoami', {}))).toMatchObject({ user: STUDENT });
    const started = data(await student.callTool('start_lesson', {}));
    expect(typeof started.session).toBe('string');
    const lesson = (started.lesson as { id: string }).id;
    p.llm.script(model(lesson));

    // /authoring, and a release e-mail: announce → subscribe → publish → one mail per subscriber.
    const course = String(
      data(await curator.callTool('create_course', { title: 'Смоук-курс релиза', summary: 'Проверка рассылки.' }))
        .course,
    );
    data(await curator.callTool('announce_course', { course, objectives: ['Получить письмо о выходе курса'] }));
    // Open to the demo organization, whose member the student is (as the demo's courses are).
    await p.cli(['course', 'allow', 'acme', course]);
    await eventually(async () => data(await student.callTool('notify_when_released', { course })), 15_000);
    const listed = data(await curator.callTool('list_courses', {}));
    expect((listed.courses as Array<{ course: string }>).map((c) => c.course)).toContain(course);
    await p.cli(['release', 'publish', await smokeMap(), '--attach', course, '--publisher', 'curator@demo.studium']);
    expect(data(await curator.callTool('publish_course', { course }))).toMatchObject({ published: true, notified: 1 });
    const mail = await eventually(async () => {
      const m = p.smtp.messages.find((x) => x.to.includes(STUDENT) && x.subject.includes('Смоук-курс релиза'));
      if (!m) throw new Error('no release e-mail yet');
      return m;
    }, 30_000);
    expect(mail.subject).toContain('Смоук-курс релиза');

    // /kb: a memory written, then found.
    data(await kb.callTool('remember_about_user', { observation: 'Смоук: любит разборы на примерах' }));
    const found = await eventually(async () => {
      const r = data(await kb.callTool('search', { query: 'разборы на примерах' }));
      if (!(r.results as unknown[]).length) throw new Error('not found yet');
      return r;
    });
    expect(JSON.stringify(found.results)).toContain('примерах');

    // The teacher's chat: one answer from the model.
    const chat = await sendMessage(p.base, p.tokens.teacher, { message: 'Как объяснить дроби?' });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    expect(answerText(chat.events)).toContain('Смоук-ответ');

    // The tutor: one turn in which the model calls a lesson tool through the edge.
    const turn = await tutorTurn(p.base, p.tokens.student, { message: 'Здравствуйте, начнём урок', lesson });
    expect(turn.status, JSON.stringify(turn.body)).toBe(200);
    expect(turn.events.some((e) => e.type === 'tool' && e.tool === 'start_lesson')).toBe(true);
    expect(turn.events.at(-1)?.type).toBe('done');

    // org_report for the organization's manager.
    const report = data(await manager.callTool('org_report', {}));
    expect(JSON.stringify(report.organizations)).toContain('acme');

    // The web apps, signed in, at phone width: the student's lesson page, the tutor, the cabinet, the chat.
    const lessonUrl = `/lessons/${encodeURIComponent(lesson)}`;
    for (const [login, path] of [
      [STUDENT, lessonUrl],
      [STUDENT, '/tutor'],
      ['curator@demo.studium', '/cabinet'],
    ] as const) {
      const page = await openSignedIn(p, login, path);
      await page.context().close();
    }
    const chatPage = await p.browser.newPage();
    const errors: string[] = [];
    chatPage.on('pageerror', (e) => errors.push(e.message));
    expect((await chatPage.goto(`${p.base}/chat`))?.status()).toBe(200);
    await waitForApp(chatPage, errors);
    await chatPage.close();
  } finally {
    await Promise.all([student, curator, manager, kb].map((c) => c.close().catch(() => {})));
  }
}
