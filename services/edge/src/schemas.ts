import { Refusal, type ToolContract } from '@studium/contracts';
import { z } from 'zod';

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
 * A zod schema as the MCP SDK consumes it, with the JSON Schema conversion done once per target.
 * The edge builds a fresh server per request (stateless), and the SDK memoises conversions per
 * registered tool, so without this every tools/call would convert its schemas again.
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
        json = std.jsonSchema[io](options);
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
 * structuredContent must validate too (SDK 1.x clients check it even on tool errors).
 */
export function envelope(tool: ToolContract): z.ZodObject {
  return z.object({ ok: z.boolean(), data: tool.output.optional(), error: Refusal.optional() });
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
