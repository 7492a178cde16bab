import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { org_report } from '@studium/contracts';
import { toolConfig } from './schemas.ts';
import { type CallDeps, type Caller, callTool } from './tools.ts';
import { viewHtml } from './ui/views.ts';

/** The MCP Apps resource of org_report's view. */
export const ORG_REPORT_VIEW_URI = 'ui://studium/org-report.html';

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
    async () => ({
      contents: [{ uri: ORG_REPORT_VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: await viewHtml('org-report') }],
    }),
  );
  registerAppTool(
    server,
    org_report.name,
    {
      ...toolConfig(org_report),
      _meta: { ui: { resourceUri: ORG_REPORT_VIEW_URI } },
    },
    (async (args: unknown) => callTool(deps, org_report, caller, args)) as never,
  );
}
