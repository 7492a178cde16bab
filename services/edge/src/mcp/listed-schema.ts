/**
 * The JSON Schemas tools/list carries, made smaller without letting fewer values through (issue 31:
 * tools/list is read into every conversation). Each rewrite either keeps the set of valid values
 * (an empty `additionalProperties` or `properties`; `$schema`, MCP's default dialect being 2020-12;
 * the `type` beside a `const` or an `enum` of strings; a part repeated within one schema moved to
 * `$defs`) or widens it (the safe-integer bounds zod puts on every `int()` of a reply; annotations;
 * the control-character pattern of identifiers). So a client that checks structuredContent against
 * outputSchema accepts every reply the edge's own (zod) check accepts, and the edge still refuses
 * every input its contract refuses: it parses every call with the contract, not the listed schema.
 */

import { ID_PATTERN } from '@studium/contracts';

type Json = Record<string, unknown>;

/** Keywords whose value is a map of subschemas by name. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords whose value is one subschema. */
const SCHEMA_ONE = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'not',
  'propertyNames',
  'contains',
  'if',
  'then',
  'else',
]);
/** The bounds zod gives every integer: they say nothing about a reply. */
const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;
/**
 * The pattern every identifier argument carries (contracts' `bounded`): enforced on every call, but
 * not listed — it tells a model nothing it would not do anyway, and it was 2 KB of /mcp's tools/list.
 */
const ID_PATTERN_SOURCE = ID_PATTERN.source;

/** Where a schema is shown: `input` to the model (descriptions and bounds stay), `output` to the client. */
export type SchemaUse = 'input' | 'output';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown) => isObject(v) && Object.keys(v).length === 0;

function compactNode(node: unknown, use: SchemaUse): unknown {
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if (key === 'additionalProperties' && isEmpty(value)) continue;
    // An input keeps `properties: {}`: clients build forms (and some hosts function specs) from it.
    if (key === 'properties' && use === 'output' && isEmpty(value)) continue;
    if (key === 'pattern' && value === ID_PATTERN_SOURCE) continue;
    if (use === 'output' && (key === 'description' || key === 'title' || key === 'examples')) continue;
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, compactNode(s, use)]));
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((s) => compactNode(s, use));
    } else if (SCHEMA_ONE.has(key)) {
      out[key] = compactNode(value, use);
    } else {
      out[key] = value;
    }
  }
  if (use === 'input') return out;
  if (out.type === 'integer') {
    if (out.minimum === SAFE_MIN) delete out.minimum;
    if (out.maximum === SAFE_MAX) delete out.maximum;
  }
  // JSON object keys are strings: the check can never fail.
  if (isObject(out.propertyNames) && out.propertyNames.type === 'string' && Object.keys(out.propertyNames).length === 1)
    delete out.propertyNames;
  const strings = Array.isArray(out.enum) && out.enum.every((v) => typeof v === 'string');
  if (out.type === 'string' && (strings || typeof out.const === 'string')) delete out.type;
  return out;
}

/** A part repeated within one schema is moved to `$defs` only when that makes the schema smaller. */
const MIN_SHARED = 40;

/**
 * Moves subschemas that occur more than once in `root` (by value) into `root.$defs`, largest first,
 * each occurrence becoming `{"$ref": "#/$defs/<n>"}`. Only where it saves bytes.
 */
function shareRepeated(root: Json): Json {
  const defs: Json = {};
  let doc = root;
  for (let n = 0; ; n++) {
    const counts = new Map<string, number>();
    const count = (node: unknown, top: boolean) => {
      if (!isObject(node)) return;
      if (!top) {
        const text = JSON.stringify(node);
        if (text.length >= MIN_SHARED) counts.set(text, (counts.get(text) ?? 0) + 1);
      }
      forEachSubschema(node, (s) => count(s, false));
    };
    count(doc, true);
    const name = `s${n}`;
    const ref = JSON.stringify({ $ref: `#/$defs/${name}` });
    let best: string | null = null;
    let bestSaving = 0;
    for (const [text, times] of counts) {
      const saving = times * (text.length - ref.length) - (text.length + name.length + 4);
      if (times > 1 && saving > bestSaving) {
        best = text;
        bestSaving = saving;
      }
    }
    if (!best) break;
    const target = best;
    defs[name] = JSON.parse(target);
    const replace = (node: unknown): unknown => {
      if (!isObject(node)) return node;
      if (JSON.stringify(node) === target) return JSON.parse(ref);
      return mapSubschemas(node, replace);
    };
    doc = mapSubschemas(doc, replace);
  }
  return Object.keys(defs).length ? { ...doc, $defs: defs } : doc;
}

function forEachSubschema(node: Json, fn: (s: unknown) => void): void {
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(key) && isObject(value)) Object.values(value).forEach(fn);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) value.forEach(fn);
    else if (SCHEMA_ONE.has(key)) fn(value);
  }
}

function mapSubschemas(node: Json, fn: (s: unknown) => unknown): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, fn(s)]));
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(fn);
    else if (SCHEMA_ONE.has(key)) out[key] = fn(value);
    else out[key] = value;
  }
  return out;
}

/**
 * The listed form of a converted schema. Input schemas keep their descriptions and bounds (the model
 * reads them) and are not split into `$defs` (a model reads a schema best in one piece); output
 * schemas, which only the client reads, also lose annotations and share their repeated parts.
 */
export function listedSchema(json: Json, use: SchemaUse): Json {
  const compact = compactNode(json, use) as Json;
  return use === 'output' ? shareRepeated(compact) : compact;
}
