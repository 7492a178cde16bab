import { AjvJsonSchemaValidator as ValidatorV2 } from '@modelcontextprotocol/client/validators/ajv';
import { AjvJsonSchemaValidator as ValidatorV1 } from '@modelcontextprotocol/sdk/validation/ajv';
import { curatorTools, ID_PATTERN, kbTools, studentTools, type ToolContract } from '@studium/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listedSchema } from '../src/mcp/listed-schema.ts';
import { envelope } from '../src/mcp/schemas.ts';

type Json = Record<string, unknown>;
const TOOLS: readonly ToolContract[] = [...studentTools, ...curatorTools, ...kbTools];
const full = (tool: ToolContract) => z.toJSONSchema(envelope(tool), { io: 'output', target: 'draft-2020-12' }) as Json;

/**
 * Instances of a JSON Schema (zod's own conversion, before any rewriting): every optional property
 * present, each branch of a union and each enum value taken in turn, one element per array, so that
 * every part of the schema is exercised by some instance.
 */
function instances(schema: Json, root: Json, depth = 0): unknown[] {
  if (depth > 12) return [null];
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.replace('#/$defs/', '');
    return instances((root.$defs as Record<string, Json>)[target] as Json, root, depth + 1);
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.flatMap((s) => instances(s as Json, root, depth + 1));
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  if (Array.isArray(schema.type)) return schema.type.flatMap((type) => instances({ ...schema, type }, root, depth));
  switch (schema.type) {
    case 'object': {
      const props = Object.entries((schema.properties ?? {}) as Record<string, Json>);
      const variants = props.map(([name, s]) => [name, instances(s, root, depth + 1)] as const);
      const widest = Math.max(1, ...variants.map(([, v]) => v.length));
      // Instance i takes the i-th variant of every property (cycling), plus an unknown extra field.
      return Array.from({ length: widest }, (_, i) => ({
        ...Object.fromEntries(variants.map(([name, v]) => [name, v[i % v.length]])),
        ...(schema.additionalProperties === false ? {} : { extra_field: 'x' }),
      }));
    }
    case 'array':
      return schema.items ? instances(schema.items as Json, root, depth + 1).map((v) => [v]) : [[]];
    case 'string':
      return ['2026-12-01T10:00:00.000Z'];
    case 'integer':
      return [3];
    case 'number':
      return [0.5];
    case 'boolean':
      return [true, false];
    case 'null':
      return [null];
    default:
      return [{ any: 1 }];
  }
}

describe('the schemas tools/list carries', () => {
  for (const [client, Validator] of [
    ['SDK 1.x', ValidatorV1],
    ['SDK 2.x', ValidatorV2],
  ] as const) {
    it(`${client}: every output schema compiles and accepts every reply its zod schema accepts`, () => {
      const validator = new Validator();
      let checked = 0;
      for (const tool of TOOLS) {
        const original = full(tool);
        const listed = listedSchema(original, 'output');
        const check = validator.getValidator(listed);
        const replies = [
          ...instances((original.properties as Record<string, Json>).data as Json, original).map((data) => ({
            ok: true,
            data,
          })),
          { ok: false, error: { code: 'busy', message: 'Занято', extra: [1] } },
        ];
        for (const reply of replies) {
          // Only replies the edge itself would send count (the SDK server checks them with zod).
          if (!envelope(tool).safeParse(reply).success) continue;
          const result = check(reply);
          expect(result.valid, `${tool.name}: ${result.errorMessage} for ${JSON.stringify(reply).slice(0, 300)}`).toBe(
            true,
          );
          checked++;
        }
        // Not a schema that takes anything: a reply of the wrong shape is still refused.
        expect(check({ ok: 'yes' }).valid, tool.name).toBe(false);
        expect(check({ ok: true, data: 'text' }).valid, tool.name).toBe(false);
      }
      expect(checked).toBeGreaterThan(TOOLS.length * 2);
    });
  }

  it('share parts only through $defs of the same schema, and keep the root an object', () => {
    for (const tool of TOOLS) {
      const listed = listedSchema(full(tool), 'output');
      const text = JSON.stringify(listed);
      expect(listed.type, tool.name).toBe('object');
      expect(text, tool.name).not.toContain('$schema');
      for (const ref of text.match(/"\$ref":"[^"]*"/g) ?? []) {
        const name = /#\/\$defs\/([^"]+)/.exec(ref)?.[1];
        expect(name && (listed.$defs as Json)?.[name], `${tool.name}: ${ref}`).toBeTruthy();
      }
    }
  });

  it('keep every input parameter, its required flag, its description and bounds, in one piece', () => {
    // What the input loses: $schema (the default dialect) and the identifiers' control-character
    // pattern (the edge still applies it: it parses every call with the contract).
    const withoutIdPattern = (node: unknown): unknown =>
      JSON.parse(
        JSON.stringify(node, (key, value) => (key === 'pattern' && value === ID_PATTERN.source ? undefined : value)),
      );
    for (const tool of TOOLS) {
      const original = z.toJSONSchema(tool.input, { io: 'input', target: 'draft-2020-12' }) as Json;
      const listed = listedSchema(original, 'input');
      const { $schema: _drop, ...rest } = original;
      expect(listed, tool.name).toEqual(withoutIdPattern(rest));
      expect(JSON.stringify(listed), tool.name).not.toContain('$ref');
    }
  });
});
