/** The tools/list budgets of issue 31, in bytes (1 KB = 1000 bytes): what a model reads, and the whole reply. */
export const TOOLS_LIST_BUDGETS = {
  '/mcp': { model: 40_000, whole: 70_000 },
  '/authoring': { model: 25_000 },
  '/kb': { model: 20_000 },
} as const satisfies Record<string, { model: number; whole?: number }>;

export type BudgetedSurface = keyof typeof TOOLS_LIST_BUDGETS;

/** The parts of a listed tool a client puts in front of the model (outputSchema and _meta stay with the client). */
const MODEL_FIELDS = ['name', 'title', 'description', 'inputSchema', 'annotations'] as const;

/** The sizes of one endpoint's tools/list: its tool count, the whole HTTP body, and the model's part. */
export interface ToolsListSize {
  tools: number;
  whole: number;
  model: number;
  /** The model's part per field (description, inputSchema…), and outputSchema's share of the whole. */
  parts: Record<string, number>;
}

/**
 * Asks a running edge for tools/list over plain HTTP (as any 2025-era client does, no session) and
 * measures it in UTF-8 bytes: `whole` is the response body as sent, `model` the JSON of each tool
 * reduced to {@link MODEL_FIELDS}.
 */
export async function measureToolsList(url: string, token: string): Promise<ToolsListSize> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`tools/list at ${url}: HTTP ${res.status} ${body.slice(0, 200)}`);
  const json = body.startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? '');
  const tools = (JSON.parse(json) as { result: { tools: Array<Record<string, unknown>> } }).result.tools;
  const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  const seen = tools.map((t) => Object.fromEntries(MODEL_FIELDS.filter((f) => f in t).map((f) => [f, t[f]])));
  const parts: Record<string, number> = {};
  for (const field of [...MODEL_FIELDS, 'outputSchema']) {
    parts[field] = tools.reduce((n, t) => n + (t[field] === undefined ? 0 : bytes(t[field])), 0);
  }
  return { tools: tools.length, whole: Buffer.byteLength(body), model: bytes({ tools: seen }), parts };
}
