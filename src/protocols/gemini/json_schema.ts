/**
 * A Gemini `Schema` (an OpenAPI 3.0 subset: Gemini API reference, `Schema`; `Type` is
 * upper case) as the JSON Schema the other protocols take for tool parameters and
 * structured output. `parametersJsonSchema` and `responseJsonSchema` are JSON Schema
 * already and are taken as they are.
 *
 * | Schema                          | JSON Schema                                  |
 * |---------------------------------|----------------------------------------------|
 * | `type` (`OBJECT`, `STRING`, ...)| `type` in lower case (`TYPE_UNSPECIFIED`: none) |
 * | `nullable: true`                | `"null"` added to `type`                     |
 * | `properties`, `items`, `anyOf`  | the same, each converted                     |
 * | `minItems`, `maxItems`, `minLength`, `maxLength`, `minProperties`, `maxProperties` (int64, may be strings) | numbers |
 * | `format`, `title`, `description`, `enum`, `required`, `pattern`, `default`, `minimum`, `maximum` | the same |
 * | `propertyOrdering`, `example`   | left out (no JSON Schema keyword)            |
 */
import { asRecord, listOf } from "../json_read.ts";
import { field } from "./fields.ts";

const COPIED = [
  "format",
  "title",
  "description",
  "enum",
  "required",
  "pattern",
  "default",
  "minimum",
  "maximum",
] as const;
const COUNTS = [
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
] as const;

/** Deeper than this a schema is cut off (`{}`): no real schema nests so deep. */
const MAX_DEPTH = 64;

/** The JSON Schema of a Gemini `Schema`. */
export function jsonSchemaOf(value: unknown, depth = 0): Record<string, unknown> {
  const schema = asRecord(value);
  if (!schema || depth > MAX_DEPTH) return {};
  const out: Record<string, unknown> = {};
  const type = field(schema, "type");
  if (typeof type === "string" && type !== "TYPE_UNSPECIFIED") {
    const name = type.toLowerCase();
    out.type = field(schema, "nullable") === true && name !== "null" ? [name, "null"] : name;
  }
  for (const key of COPIED) {
    const copied = field(schema, key);
    if (copied !== undefined) out[key] = copied;
  }
  for (const key of COUNTS) {
    const count = Number(field(schema, key));
    if (field(schema, key) !== undefined && Number.isFinite(count)) out[key] = count;
  }
  const properties = asRecord(field(schema, "properties"));
  if (properties) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map((
        [name, property],
      ) => [name, jsonSchemaOf(property, depth + 1)]),
    );
  }
  const items = field(schema, "items");
  if (items !== undefined) out.items = jsonSchemaOf(items, depth + 1);
  const anyOf = field(schema, "anyOf");
  if (anyOf !== undefined) out.anyOf = listOf(anyOf).map((entry) => jsonSchemaOf(entry, depth + 1));
  return out;
}
