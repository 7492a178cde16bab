import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpRequestContext,
  McpServer,
} from '@modelcontextprotocol/server';
import { curatorTools, studentTools, type ToolContract } from '@studium/contracts';
import { capabilitiesSupportUi, registerChoose, type UiSupport } from './choose.ts';
import { headersOnlyRequest, rpcError, serveLegacyJson, writeInternalError, writeJson } from './legacy.ts';
import { registerOrgReportView } from './org-report-view.ts';
import { type CallDeps, type Caller, registerContractTool } from './tools.ts';

/** The two MCP surfaces of spec 000 and the server instructions each gives its agent. */
export const SURFACES = {
  '/mcp': {
    tools: studentTools,
    instructions:
      'Studium: вы ведёте занятие ученика по курсу из релиза. Начните с list_my_courses (или list_catalog, если курсов нет; whoami — если пусто и там), ' +
      'затем start_lesson. Разобранный пункт сразу отмечайте mark_goal со свидетельством. Ветвитесь по коду отказа в квадратных скобках, не по тексту. ' +
      'Квиз проверяет сервер: не отвечайте за ученика и не проверяйте ответы сами.',
  },
  '/authoring': {
    tools: curatorTools,
    instructions:
      'Studium, кураторский набор: курс меняется только новым релизом (командой конвейера). Начните с list_courses, затем course_notes и course_reports. ' +
      'Ключи мест берите из course_release. Ветвитесь по коду отказа в квадратных скобках, не по тексту.',
  },
} as const satisfies Record<string, { tools: readonly ToolContract[]; instructions: string }>;

export type SurfacePath = keyof typeof SURFACES;

/**
 * One stateless MCP handler per surface: every exchange gets a fresh server whose tools close over
 * the caller resolved before the MCP layer (passed through authInfo.extra).
 */
export function createSurfaceHandler(
  path: SurfacePath,
  deps: CallDeps,
  uiFromInitialize: (caller: Caller) => Promise<boolean>,
) {
  const surface = SURFACES[path];
  const factory = (ctx: McpRequestContext) => {
    const caller = ctx.authInfo?.extra?.caller as Caller;
    // A tools/call needs only its own tool on this one-request server; everything else gets all.
    const only = ctx.authInfo?.extra?.onlyTool as string | undefined;
    const server = new McpServer(
      { name: `studium${path === '/mcp' ? '' : '-authoring'}`, version: '0.1.0' },
      { instructions: surface.instructions },
    );
    const uiSupported: UiSupport = async (s) => {
      const caps = s.server.getClientCapabilities();
      return caps ? capabilitiesSupportUi(caps) : uiFromInitialize(caller);
    };
    for (const tool of surface.tools) {
      if (only && tool.name !== only) continue;
      if (tool.service === 'edge' && tool.name === 'choose') registerChoose(server, uiSupported);
      else if (tool.name === 'org_report') registerOrgReportView(server, deps, caller);
      else registerContractTool(server, deps, tool, caller);
    }
    return server;
  };
  // Modern (2026-07-28) traffic goes through the SDK entry; 2025-era traffic, which both SDK
  // client lines negotiate today, is served here with JSON responses (see serveLegacyJson).
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  const modern = toNodeHandler(handler);
  const node = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody: unknown) => {
    if (req.method === 'POST' && !isJsonContentType(req.headers['content-type'] ?? null)) {
      const error = rpcError(-32000, 'Unsupported Media Type: Content-Type must be application/json', null);
      return writeJson(res, 415, JSON.stringify(error));
    }
    let request: Request;
    try {
      request = headersOnlyRequest(req);
      if (!(await isLegacyRequest(request, parsedBody))) return modern(req, res, parsedBody);
    } catch {
      return writeInternalError(res, parsedBody);
    }
    return serveLegacyJson(factory, request, res, parsedBody, req.auth);
  };
  return { handler, node };
}
