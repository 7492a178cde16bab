import { randomBytes } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * The serialized forms of one tool result's data: `text` is the text content (the JSON of data);
 * the encoded bytes are made on first use. A data object that comes from the reply cache is the
 * same object on every call, and so is its entry: a kept list is serialized once.
 */
export interface SerializedData {
  text: string;
  /** UTF-8 of `text`: the JSON of data, spliced in as structuredContent.data. */
  dataBytes?: Buffer;
  /** UTF-8 of the JSON string literal of `text`, spliced in as the text content. */
  textBytes?: Buffer;
}

// Keyed by the data object itself: the SDK re-parses a tool result on its way out, which copies
// the structuredContent envelope but hands its `data` (an unknown) through by reference.
const serializedOf = new WeakMap<object, SerializedData>();

// Stand in for the text content and for `data` while the rest of the reply is serialized.
// JSON.stringify writes the leading NUL as the escape `\u0000`: inside the text content (JSON,
// which holds no raw control character) no bare `"` can precede that escape, and the random part
// keeps a client-chosen request id from posing as a mark.
const MARK = `\u0000studium:${randomBytes(12).toString('base64url')}`;
const TEXT_MARK = `${MARK}:text`;
const DATA_MARK = `${MARK}:data`;
const TEXT_MARK_BYTES = Buffer.from(JSON.stringify(TEXT_MARK));
const DATA_MARK_BYTES = Buffer.from(JSON.stringify(DATA_MARK));

/** The serialized forms of a tool result's data, made on the first call for that data object. */
export function serializedData(data: unknown): SerializedData {
  const keep = typeof data === 'object' && data !== null;
  let serialized = keep ? serializedOf.get(data) : undefined;
  if (!serialized) {
    serialized = { text: JSON.stringify(data) ?? 'null' };
    if (keep) serializedOf.set(data, serialized);
  }
  return serialized;
}

type ToolResult = { content?: Array<{ type?: string; text?: string }>; structuredContent?: { data?: unknown } };

/**
 * A JSON-RPC message as UTF-8 JSON, byte for byte what JSON.stringify gives, in chunks to be
 * written together. A tool result's data and its text content (the bulk of a list reply) are not
 * serialized again: their encoded bytes, made once per data object, are spliced in.
 */
export function encodeReply(message: JSONRPCMessage): Buffer[] {
  const result = (message as { result?: ToolResult }).result;
  const sc = result?.structuredContent;
  const data = sc?.data;
  const s = typeof data === 'object' && data !== null ? serializedOf.get(data) : undefined;
  const [first, ...rest] = result?.content ?? [];
  if (!result || !sc || !s || first?.text !== s.text) return [Buffer.from(JSON.stringify(message))];
  s.dataBytes ??= Buffer.from(s.text);
  s.textBytes ??= Buffer.from(JSON.stringify(s.text));
  const marked = Buffer.from(
    JSON.stringify({
      ...message,
      result: {
        ...result,
        content: [{ ...first, text: TEXT_MARK }, ...rest],
        structuredContent: { ...sc, data: DATA_MARK },
      },
    }),
  );
  const splices = [
    { at: marked.indexOf(TEXT_MARK_BYTES), length: TEXT_MARK_BYTES.length, bytes: s.textBytes },
    { at: marked.indexOf(DATA_MARK_BYTES), length: DATA_MARK_BYTES.length, bytes: s.dataBytes },
  ].sort((a, b) => a.at - b.at);
  if (splices[0].at < 0) return [Buffer.from(JSON.stringify(message))];
  const chunks: Buffer[] = [];
  let from = 0;
  for (const { at, length, bytes } of splices) {
    chunks.push(marked.subarray(from, at), bytes);
    from = at + length;
  }
  chunks.push(marked.subarray(from));
  return chunks;
}
