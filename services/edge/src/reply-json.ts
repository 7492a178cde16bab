import { randomBytes } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/** structuredContent objects whose `data` is already serialized: the tool's text content. */
const serializedData = new WeakMap<object, string>();

// Stands in for `data` while the rest of the reply is serialized. JSON.stringify writes the
// leading NUL as the escape `\u0000`: inside the text content (JSON, which holds no raw control
// character) no bare `"` can precede that escape, and the random part keeps a client-chosen
// request id from posing as the mark.
const MARK = `\u0000studium:${randomBytes(12).toString('base64url')}`;
const MARK_BYTES = Buffer.from(JSON.stringify(MARK));

/** Records that `structuredContent.data` serializes to `json` (the reply's text content). */
export function rememberDataJson(structuredContent: object, json: string): void {
  serializedData.set(structuredContent, json);
}

/**
 * A JSON-RPC message as UTF-8 JSON, byte for byte what JSON.stringify gives, in chunks to be
 * written together. A tool result's `structuredContent.data` is not serialized a second time: its
 * JSON is the text content, encoded once and spliced in (it is the bulk of a list reply).
 */
export function encodeReply(message: JSONRPCMessage): Buffer[] {
  const result = (message as { result?: { structuredContent?: { data?: unknown } } }).result;
  const sc = result?.structuredContent;
  const json = sc ? serializedData.get(sc) : undefined;
  if (!result || !sc || json === undefined) return [Buffer.from(JSON.stringify(message))];
  const marked = Buffer.from(
    JSON.stringify({ ...message, result: { ...result, structuredContent: { ...sc, data: MARK } } }),
  );
  const at = marked.indexOf(MARK_BYTES);
  if (at < 0) return [Buffer.from(JSON.stringify(message))];
  return [marked.subarray(0, at), Buffer.from(json), marked.subarray(at + MARK_BYTES.length)];
}
