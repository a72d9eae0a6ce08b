/**
 * The Gemini `GenerateContentRequest` as far as tollgate reads it (Gemini API reference,
 * "Generating content": `models.generateContent`, and the `Content`, `Part`, `Tool`,
 * `ToolConfig` and `GenerationConfig` types; `@google/genai` `GenerateContentParameters`).
 * The model is not a field: it comes from the path. Fields are checked under their JSON
 * names, as the SDKs send them; every other field passes through untouched.
 */
import * as z from "zod/mini";
import { asRecord } from "../json_read.ts";
import { BODY_EXPECTED, MAX_TOKEN_LIMIT, nullish, optionalBoolean } from "../schema_fields.ts";

const optionalString = nullish(z.string({ error: "a string" }));
const optionalNumber = nullish(z.number({ error: "a number" }));
const optionalObject = nullish(z.object({}, { error: "an object" }));
const stringList = nullish(
  z.array(z.string({ error: "a string" }), { error: "an array of strings" }),
);

/** An integer from `least` to the largest token limit, with one wording for every fault. */
function optionalInt(least: number) {
  const expected = { error: `an integer from ${least} to ${MAX_TOKEN_LIMIT}` };
  return nullish(
    z.int(expected).check(z.minimum(least, expected), z.maximum(MAX_TOKEN_LIMIT, expected)),
  );
}

/** One part of a content: an object; a `text` it holds is a string. The rest is not read here. */
export const PartSchema = z.object({ text: optionalString }, { error: "an object" });

const PARTS_EXPECTED = { error: "a non-empty array of parts" };

/** One content (`Content`): an optional string `role` and a non-empty array of parts. */
export const ContentSchema = z.object({
  role: optionalString,
  parts: z.array(PartSchema, PARTS_EXPECTED).check(z.minLength(1, PARTS_EXPECTED)),
}, { error: "an object" });

/**
 * What ContentSchema accepts, tested without zod: a long conversation has thousands of
 * parts, and zod's walk over them allocates for each where this loop does not (see
 * schema_fields.ts `isMessage`); schema_test checks that the two agree.
 */
export function isContent(value: unknown): boolean {
  const content = asRecord(value);
  if (!content) return false;
  if (content.role != null && typeof content.role !== "string") return false;
  const parts = content.parts;
  if (!Array.isArray(parts) || parts.length === 0) return false;
  for (const part of parts) {
    const record = asRecord(part);
    if (!record || (record.text != null && typeof record.text !== "string")) return false;
  }
  return true;
}

/**
 * `contents`: a non-empty conversation. Only the first content at fault is reported, in
 * zod's words: a client fixes one at a time, and a million bad items make no million issues.
 */
export const contentList = z.custom<Record<string, unknown>[]>(
  (value) => Array.isArray(value) && value.length > 0,
  { error: "a non-empty array of contents" },
).check(z.check((payload) => {
  const contents = payload.value;
  for (let index = 0; index < contents.length; index++) {
    const content = contents[index];
    if (isContent(content)) continue;
    for (const issue of ContentSchema.safeParse(content).error?.issues ?? []) {
      payload.issues.push({
        code: "custom",
        message: issue.message,
        path: [index, ...issue.path],
        input: content,
      });
    }
    return;
  }
}));

/** `systemInstruction`: a content whose `role` is ignored (Gemini CLI sends "user"). */
const systemInstruction = nullish(z.object({
  parts: z.array(PartSchema, { error: "an array of parts" }),
}, { error: "an object with `parts`" }));

const FunctionDeclarationSchema = z.object({
  name: z.string({ error: "a string" }).check(z.minLength(1, { error: "a non-empty string" })),
  description: optionalString,
  parameters: optionalObject,
}, { error: "an object" });

const ToolSchema = z.object({
  functionDeclarations: nullish(
    z.array(FunctionDeclarationSchema, { error: "an array of function declarations" }),
  ),
}, { error: "an object" });

const MODES = ["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"] as const;

const toolConfig = nullish(z.object({
  functionCallingConfig: nullish(z.object({
    mode: nullish(z.enum(MODES, { error: `one of ${MODES.join(", ")}` })),
    allowedFunctionNames: stringList,
  }, { error: "an object" })),
}, { error: "an object" }));

const generationConfig = nullish(z.object({
  maxOutputTokens: optionalInt(1),
  temperature: optionalNumber,
  topP: optionalNumber,
  topK: optionalInt(1),
  stopSequences: stringList,
  candidateCount: optionalInt(1),
  responseMimeType: optionalString,
  responseSchema: optionalObject,
  thinkingConfig: nullish(z.object({
    // -1 asks for a dynamic budget; 0 turns thinking off.
    thinkingBudget: optionalInt(-1),
    includeThoughts: optionalBoolean,
    thinkingLevel: optionalString,
  }, { error: "an object" })),
}, { error: "an object" }));

/** The fields of a `models/{model}:generateContent` body that tollgate reads, in the order faults are told. */
export const GenerateContentRequestSchema = z.object({
  contents: contentList,
  systemInstruction,
  tools: nullish(z.array(ToolSchema, { error: "an array of tools" })),
  toolConfig,
  generationConfig,
  safetySettings: nullish(z.array(z.object({}, { error: "an object" }), {
    error: "an array of safety settings",
  })),
  cachedContent: optionalString,
}, { error: BODY_EXPECTED });
/** What tollgate reads of a generateContent request. */
export type GenerateContentRequest = z.output<typeof GenerateContentRequestSchema>;

/**
 * The fields of a `models/{model}:countTokens` body (`CountTokensRequest`): `contents`, or
 * a whole `generateContentRequest` (checked when there are no `contents`).
 */
export const CountTokensRequestSchema = z.object({
  contents: nullish(contentList),
  generateContentRequest: nullish(z.object({ contents: contentList }, { error: "an object" })),
}, { error: BODY_EXPECTED });
