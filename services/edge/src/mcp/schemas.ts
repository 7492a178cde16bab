import { Refusal, type ToolContract } from '@studium/contracts';
import { z } from 'zod';
import { listedSchema } from './listed-schema.ts';

type Converter = (options: { target?: string }) => Record<string, unknown>;

interface StandardLike {
  '~standard': {
    vendor: string;
    version: 1;
    validate: (value: unknown) => unknown;
    jsonSchema: { input: Converter; output: Converter };
  };
}

/**
 * A zod schema as the MCP SDK consumes it, with the JSON Schema conversion done once per target and
 * made small for tools/list (see {@link listedSchema}). The edge builds a fresh server per request
 * (stateless), and the SDK memoises conversions per registered tool, so without this every
 * tools/call would convert its schemas again.
 */
function memoized(schema: z.ZodType, validate?: (value: unknown) => unknown): StandardLike {
  const std = schema['~standard'] as unknown as StandardLike['~standard'];
  const cache = new Map<string, Record<string, unknown>>();
  const convert =
    (io: 'input' | 'output'): Converter =>
    (options) => {
      const key = `${io}:${options?.target ?? ''}`;
      let json = cache.get(key);
      if (!json) {
        json = listedSchema(std.jsonSchema[io](options), io);
        cache.set(key, json);
      }
      return json;
    };
  return {
    '~standard': {
      vendor: std.vendor,
      version: 1,
      validate: validate ?? ((value) => std.validate(value)),
      jsonSchema: { input: convert('input'), output: convert('output') },
    },
  };
}

interface ToolSchemas {
  /** Listed in tools/list; validation is left to the edge, which answers `invalid_arguments` in Russian. */
  input: z.ZodObject;
  /** The reply envelope `{ ok, data?, error? }` (see {@link envelope}). */
  output: z.ZodObject;
}

const built = new WeakMap<ToolContract, ToolSchemas>();

/**
 * The MCP outputSchema of a tool is the reply envelope `{ ok, data?, error? }`: a refusal's
 * structuredContent must validate too (SDK 1.x clients check it even on tool errors). Loose like
 * every reply object: the edge writes no other key, and saying so in each tool's schema cost about
 * a kilobyte of /mcp's tools/list.
 */
export function envelope(tool: ToolContract): z.ZodObject {
  return z.looseObject({ ok: z.boolean(), data: tool.output.optional(), error: Refusal.optional() });
}

/**
 * The SDK validates every structuredContent against the output schema. Data objects that come
 * back from the reply cache are the same (unchanged) objects on every call: each is validated the
 * first time only.
 */
function validatedOnce(schema: z.ZodObject): (value: unknown) => unknown {
  const std = schema['~standard'];
  const valid = new WeakSet<object>();
  return (value) => {
    const data = (value as { ok?: unknown; data?: unknown } | null)?.data;
    const keep = (value as { ok?: unknown } | null)?.ok === true && typeof data === 'object' && data !== null;
    if (keep && valid.has(data)) return { value };
    const result = std.validate(value);
    if (keep && !(result instanceof Promise) && !result.issues) valid.add(data);
    return result;
  };
}

/** The schemas a tool is registered with, built once per contract. */
export function toolSchemas(tool: ToolContract): ToolSchemas {
  let schemas = built.get(tool);
  if (!schemas) {
    const output = envelope(tool);
    schemas = {
      input: memoized(tool.input, (value) => ({ value })) as unknown as z.ZodObject,
      output: memoized(output, validatedOnce(output)) as unknown as z.ZodObject,
    };
    built.set(tool, schemas);
  }
  return schemas;
}

/** The values MCP gives a tool annotation that is not stated (the schema of ToolAnnotations). */
const HINT_DEFAULTS: ToolContract['annotations'] = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * The annotations as listed: only the hints that differ from MCP's defaults, and for a read-only
 * tool not destructiveHint and idempotentHint, which MCP defines only for tools that write. A client
 * reads the same hints from less text (tools/list is read into every conversation).
 */
export function listedAnnotations(hints: ToolContract['annotations']): Partial<ToolContract['annotations']> {
  const out: Partial<ToolContract['annotations']> = {};
  for (const key of Object.keys(HINT_DEFAULTS) as Array<keyof typeof HINT_DEFAULTS>) {
    if (hints.readOnlyHint && (key === 'destructiveHint' || key === 'idempotentHint')) continue;
    if (hints[key] !== HINT_DEFAULTS[key]) out[key] = hints[key];
  }
  return out;
}

/**
 * What tools/list says of a contract's tool. The title is given once, at the top level (where
 * clients look first since 2025-06-18), not again as `annotations.title`.
 */
export function toolConfig(tool: ToolContract) {
  const schemas = toolSchemas(tool);
  return {
    title: tool.title,
    description: tool.description,
    inputSchema: schemas.input,
    outputSchema: schemas.output,
    annotations: listedAnnotations(tool.annotations),
  };
}
