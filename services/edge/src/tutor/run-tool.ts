import {
  choose,
  complete_lesson,
  lesson_item,
  mark_goal,
  remember,
  report_issue,
  request_quiz,
  start_lesson,
  startLessonChannel,
  submit_answer,
  type ToolContract,
  TUTOR_TOOL_ARGS_MAX,
  type TutorToolCall,
  update_artifact,
} from '@studium/contracts';
import { z } from 'zod';
import { checkArguments } from '../mcp/arguments.ts';
import { type CallDeps, type Caller, callTool } from '../mcp/tools.ts';

/**
 * start_lesson in the web chat: the channel-named twin's subject, channel fixed to `web` (a model
 * that asks for another channel gets invalid_arguments).
 */
const webStartLesson: ToolContract = {
  ...start_lesson,
  subject: startLessonChannel.subject,
  input: start_lesson.input.extend({ channel: z.literal('web').default('web') }),
};

/** The tools the tutor runs, by name; fill_document and the rest of /mcp are not among them. */
const TOOLS = new Map<string, ToolContract>(
  [lesson_item, mark_goal, request_quiz, submit_answer, complete_lesson, update_artifact, remember, report_issue].map(
    (t) => [t.name, t],
  ),
);
TOOLS.set('start_lesson', webStartLesson);

const refusal = (code: string, message: string) => JSON.stringify({ error: { code, message } });

/**
 * Runs one of the tutor model's tool calls for the signed-in student, through the same path as
 * a tool call at /mcp (scope, rate limit, schema, the bus request with the student's principal
 * signed by this edge, audit, metrics). The result is the JSON the model reads: the data, or
 * `{error}` with the refusal or the failure's phrase.
 */
export async function runTutorTool(deps: CallDeps, caller: Caller, call: TutorToolCall): Promise<string> {
  if (call.arguments.length > TUTOR_TOOL_ARGS_MAX)
    return refusal('invalid_arguments', `Аргументы длиннее ${TUTOR_TOOL_ARGS_MAX} символов`);
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return refusal('invalid_arguments', `Аргументы ${call.name} — не JSON: передайте объект с параметрами инструмента`);
  }
  if (call.name === choose.name) return runChoose(args);
  const tool = TOOLS.get(call.name);
  if (!tool) return refusal('unknown_tool', `В веб-чате нет инструмента ${call.name.slice(0, 60)}`);
  const result = await callTool(deps, tool, caller, args);
  const sc = (result as { structuredContent?: { ok?: boolean; data?: unknown; error?: unknown } }).structuredContent;
  if (sc?.ok === true) return JSON.stringify(sc.data);
  if (sc?.ok === false) return JSON.stringify({ error: sc.error });
  return JSON.stringify({ error: { code: 'failure', message: result.content[0]?.text ?? 'Ошибка' } });
}

/** choose in the web chat: the page draws the buttons; a click comes as the student's next message. */
function runChoose(args: unknown): string {
  const parsed = checkArguments(choose.input, args ?? {});
  const data = parsed.success ? (parsed.data as z.infer<typeof choose.input>) : null;
  const options = data ? data.options.map((o) => o.trim()).filter(Boolean) : [];
  if (!data?.prompt.trim() || options.length === 0)
    return refusal('invalid_arguments', 'choose: нужен непустой prompt и хотя бы один непустой вариант в options');
  return JSON.stringify({
    shown: 'card',
    prompt: data.prompt,
    options,
    ...(data.title ? { title: data.title } : {}),
    next: 'Кнопки показаны ученику на странице. Закончите реплику и ждите: нажатая кнопка придёт репликой ученика ««вопрос» — выбираю: вариант».',
  });
}
