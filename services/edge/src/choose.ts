import { readFileSync } from 'node:fs';
import {
  getUiCapability,
  RESOURCE_MIME_TYPE,
  registerAppResource,
  registerAppTool,
} from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { choose, INVALID_ARGUMENTS } from '@studium/contracts';
import { dataResult, refusalResult } from './render.ts';
import { toolSchemas } from './schemas.ts';
import { invalidArguments } from './tools.ts';

const CARD_URI = 'ui://studium/choose.html';
const CARD_HTML = readFileSync(new URL('./ui/choose.html', import.meta.url), 'utf8');

/** Whether the client renders MCP Apps: asked of this exchange first, then of what it said at initialize. */
export type UiSupport = (server: McpServer) => Promise<boolean>;

/**
 * choose is answered by the edge: clients with MCP Apps get a card with buttons; others get the
 * text fallback that tells the agent to ask in words (spec 000, choose). Either way the agent ends
 * its turn and waits: a pressed button arrives as the student's reply.
 */
export function registerChoose(server: McpServer, uiSupported: UiSupport): void {
  registerAppResource(
    server,
    'Выбор кнопками',
    CARD_URI,
    { description: 'Карточка с вопросом и кнопками' },
    async () => ({
      contents: [{ uri: CARD_URI, mimeType: RESOURCE_MIME_TYPE, text: CARD_HTML }],
    }),
  );
  registerAppTool(
    server,
    choose.name,
    {
      title: choose.title,
      description: choose.description,
      inputSchema: toolSchemas(choose).input,
      outputSchema: toolSchemas(choose).output,
      annotations: { title: choose.title, ...choose.annotations },
      _meta: { ui: { resourceUri: CARD_URI } },
    },
    (async (raw: unknown) => {
      const parsed = choose.input.safeParse(raw ?? {});
      if (!parsed.success) return refusalResult(invalidArguments(choose, parsed.error));
      const args = parsed.data;
      const options = args.options.map((o) => String(o).trim()).filter(Boolean);
      // A card without a question or without buttons is no choice: refused like any bad argument.
      const empty = [...(args.prompt.trim() ? [] : ['prompt']), ...(options.length ? [] : ['options'])];
      if (empty.length) return refusalResult(emptyArguments(empty));
      if (await uiSupported(server)) {
        return dataResult({
          shown: 'card',
          prompt: args.prompt,
          options,
          ...(args.title ? { title: args.title } : {}),
          next: 'Карточка с кнопками показана ученику. Закончите реплику и ждите: нажатая кнопка придёт репликой ученика ««вопрос» — выбираю: вариант»; ответ своими словами тоже засчитывается как выбор.',
        });
      }
      const list = options.map((o, i) => `${i + 1}) ${o}`).join('; ');
      return dataResult({
        shown: 'text',
        prompt: args.prompt,
        options,
        ...(args.title ? { title: args.title } : {}),
        next: `Кнопок этот клиент не покажет: задайте ученику вопрос словами — «${args.prompt}» — и перечислите варианты: ${list}. Закончите реплику и ждите ответа; ответ своими словами тоже засчитывается как выбор.`,
      });
    }) as never,
  );
}

/** invalid_arguments for a prompt or options that are empty once trimmed. */
function emptyArguments(fields: string[]) {
  return {
    code: INVALID_ARGUMENTS,
    message: `Аргументы не подходят инструменту choose: ${fields.join(', ')} — нужен вопрос и хотя бы один непустой вариант`,
    fields: fields.map((field) => ({
      field,
      problem: field === 'prompt' ? 'пустой вопрос' : 'нет ни одного непустого варианта',
    })),
  };
}

/** True when client capabilities announce MCP Apps with the HTML profile. */
export function capabilitiesSupportUi(caps: unknown): boolean {
  const ui = getUiCapability(caps as never);
  return !!ui && (!ui.mimeTypes || ui.mimeTypes.includes(RESOURCE_MIME_TYPE));
}
