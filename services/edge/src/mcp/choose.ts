import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { choose, INVALID_ARGUMENTS } from '@studium/contracts';
import type { z } from 'zod';
import { checkArguments } from './arguments.ts';
import { invalidArguments } from './refusals.ts';
import { dataResult, refusalResult } from './render.ts';
import { toolConfig } from './schemas.ts';
import { viewHtml } from './ui/views.ts';
import type { UiSupport } from './ui-support.ts';

const CARD_URI = 'ui://studium/choose.html';

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
      contents: [{ uri: CARD_URI, mimeType: RESOURCE_MIME_TYPE, text: await viewHtml('choose') }],
    }),
  );
  registerAppTool(
    server,
    choose.name,
    {
      ...toolConfig(choose),
      _meta: { ui: { resourceUri: CARD_URI } },
    },
    (async (raw: unknown) => {
      const parsed = checkArguments(choose.input, raw ?? {});
      if (!parsed.success) return refusalResult(invalidArguments(choose, parsed));
      const args = parsed.data as z.infer<typeof choose.input>;
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
