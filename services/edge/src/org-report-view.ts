import { readFileSync } from 'node:fs';
import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { org_report } from '@studium/contracts';
import { toolSchemas } from './schemas.ts';
import { type CallDeps, type Caller, callTool } from './tools.ts';

/** The MCP Apps resource of org_report's view. */
export const ORG_REPORT_VIEW_URI = 'ui://studium/org-report.html';
const VIEW_HTML = readFileSync(new URL('./ui/org-report.html', import.meta.url), 'utf8');

/**
 * org_report as an MCP Apps tool: a client with MCP Apps renders the view (summary, sortable table
 * with progress bars, overdue rows highlighted, course and status filters that call the tool again);
 * every client, and the model, gets the same result as any tool — its text is the JSON of the
 * report, the fallback for clients without MCP Apps.
 */
export function registerOrgReportView(server: McpServer, deps: CallDeps, caller: Caller): void {
  registerAppResource(
    server,
    'Отчёт по обучению',
    ORG_REPORT_VIEW_URI,
    { description: 'Таблица отчёта руководителя: итоги, сортировка, фильтры, просрочки' },
    async () => ({ contents: [{ uri: ORG_REPORT_VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: VIEW_HTML }] }),
  );
  registerAppTool(
    server,
    org_report.name,
    {
      title: org_report.title,
      description: org_report.description,
      inputSchema: toolSchemas(org_report).input,
      outputSchema: toolSchemas(org_report).output,
      annotations: { title: org_report.title, ...org_report.annotations },
      _meta: { ui: { resourceUri: ORG_REPORT_VIEW_URI } },
    },
    (async (args: unknown) => callTool(deps, org_report, caller, args)) as never,
  );
}
