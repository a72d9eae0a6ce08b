/**
 * A Gemini client body (Gemini API reference, `models.generateContent` request body:
 * `GenerateContentRequest`; `@google/genai` `GenerateContentParameters`) as an IR request.
 * The model and streaming come from the path (`route`). Fields are read under their JSON
 * or proto names (fields.ts).
 *
 * | Gemini                                             | IR                                   |
 * |----------------------------------------------------|--------------------------------------|
 * | `systemInstruction`, `contents`                    | system, turns (contents_decode.ts)   |
 * | `tools[].functionDeclarations`                     | function tools: `parametersJsonSchema` as it is, else `parameters` converted (json_schema.ts); not strict |
 * | `tools[].googleSearch`, `googleSearchRetrieval`    | web_search                           |
 * | other tools (`codeExecution`, `urlContext`, `googleMaps`, `fileSearch`, ...) | dropped |
 * | `toolConfig.functionCallingConfig.mode` AUTO / ANY / NONE / VALIDATED | auto / required / none / auto |
 * | ANY with one `allowedFunctionNames`                | tool (that name)                     |
 * | `allowedFunctionNames` (several)                   | only those functions offered         |
 * | `generationConfig.maxOutputTokens`, `temperature`, `topP`, `topK`, `stopSequences` | the same fields |
 * | `generationConfig.candidateCount`                  | n                                    |
 * | `responseLogprobs`, `logprobs`                     | logprobs, topLogprobs                |
 * | `responseMimeType` application/json (+ `responseJsonSchema` or `responseSchema`) | output json_schema (not strict) or json_object |
 * | `responseModalities` with AUDIO                    | audio                                |
 * | `thinkingConfig.thinkingBudget` 0 / -1 / n         | reasoning off / on / on with that budget (effort from it) |
 * | `thinkingConfig.thinkingLevel`                     | reasoning effort                     |
 * | `thinkingConfig.includeThoughts`                   | reasoning on, summary `auto`         |
 * | `cachedContent`                                    | refused: the cached prompt is in Google's cache, not in the request |
 * | `safetySettings`, `seed`, `presencePenalty`, `frequencyPenalty`, `speechConfig`, ... | dropped |
 */
import type {
  IrOutputFormat,
  IrReasoningConfig,
  IrRequest,
  IrTool,
  IrToolChoice,
} from "../../translate/ir.ts";
import { convertError } from "../../translate/errors.ts";
import { effortNamed, effortOfBudget } from "../../translate/reasoning.ts";
import { asRecord, listOf, stringOr } from "../json_read.ts";
import { decodeContents, decodeSystemInstruction } from "./contents_decode.ts";
import { camelName, field, numberField, objectField, stringField } from "./fields.ts";
import type { RequestRoute } from "../../translate/codec.ts";
import { jsonSchemaOf } from "./json_schema.ts";

// Every top-level field this decoder reads; any other a client sets is reported as dropped.
const READ = new Set([
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "generationConfig",
  "model",
]);
// Every generationConfig field it reads.
const GENERATION_READ = new Set([
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "stopSequences",
  "candidateCount",
  "responseLogprobs",
  "logprobs",
  "responseMimeType",
  "responseSchema",
  "responseJsonSchema",
  "responseModalities",
  "thinkingConfig",
]);
// Tools that name a Google search (`GoogleSearch`, and the legacy `GoogleSearchRetrieval`).
const SEARCH_TOOLS = ["googleSearch", "googleSearchRetrieval"];

/**
 * Decodes a Gemini client body; throws `convert_request_failed` for content it cannot
 * carry. Without a route (the body alone) the model is the body's `model`, if any, and
 * the request does not stream.
 */
export function decodeGeminiRequest(
  body: Record<string, unknown>,
  route?: RequestRoute,
): IrRequest {
  if (stringField(body, "cachedContent")) {
    throw convertError(
      "cachedContent",
      "the cached content is kept in Google's cache; send the content itself instead",
    );
  }
  const dropped = unread(body, READ, "");
  const config = objectField(body, "generationConfig") ?? {};
  dropped.push(...unread(config, GENERATION_READ, "generationConfig."));
  const request: IrRequest = {
    model: route?.model ?? stringField(body, "model").replace(/^models\//, ""),
    stream: route?.stream ?? false,
    system: decodeSystemInstruction(field(body, "systemInstruction")),
    turns: decodeContents(body.contents, dropped),
    tools: decodeTools(field(body, "tools"), dropped),
    stop: listOf(field(config, "stopSequences")).filter((s): s is string => typeof s === "string"),
    dropped,
  };
  const choice = decodeToolChoice(
    objectField(objectField(body, "toolConfig"), "functionCallingConfig"),
    request,
  );
  if (choice) request.toolChoice = choice;
  const max = numberField(config, "maxOutputTokens");
  if (max !== undefined) request.maxOutputTokens = max;
  const temperature = numberField(config, "temperature");
  if (temperature !== undefined) request.temperature = temperature;
  const topP = numberField(config, "topP");
  if (topP !== undefined) request.topP = topP;
  const topK = numberField(config, "topK");
  if (topK !== undefined) request.topK = topK;
  const candidates = numberField(config, "candidateCount");
  if (candidates !== undefined) request.n = candidates;
  if (field(config, "responseLogprobs") === true) request.logprobs = true;
  const logprobs = numberField(config, "logprobs");
  if (logprobs !== undefined) request.topLogprobs = logprobs;
  const modalities = listOf(field(config, "responseModalities")).map((m) =>
    stringOr(m).toUpperCase()
  );
  if (modalities.includes("AUDIO")) request.audio = true;
  if (modalities.includes("IMAGE")) dropped.push("generationConfig.responseModalities (IMAGE)");
  const output = decodeOutput(config, dropped);
  if (output) request.output = output;
  const reasoning = decodeThinking(objectField(config, "thinkingConfig"));
  if (reasoning) request.reasoning = reasoning;
  const toolConfig = objectField(body, "toolConfig") ?? {};
  dropped.push(...unread(toolConfig, new Set(["functionCallingConfig"]), "toolConfig."));
  return request;
}

/** The keys of `record` (under either name) not in `read` and not null, prefixed. */
function unread(record: Record<string, unknown>, read: Set<string>, prefix: string): string[] {
  return Object.keys(record).filter((key) => !read.has(camelName(key)) && record[key] != null)
    .map((key) => prefix + key);
}

/**
 * Function declarations as function tools, a Google search as web search; the other
 * built-in tools run only at Google and are dropped.
 */
function decodeTools(value: unknown, dropped: string[]): IrTool[] {
  const tools: IrTool[] = [];
  listOf(value).forEach((entry, i) => {
    const tool = asRecord(entry) ?? {};
    for (const key of Object.keys(tool)) {
      const name = camelName(key);
      if (name === "functionDeclarations") {
        listOf(tool[key]).forEach((declaration, k) => {
          tools.push(
            functionTool(asRecord(declaration) ?? {}, `tools[${i}].${key}[${k}]`, dropped),
          );
        });
      } else if (SEARCH_TOOLS.includes(name)) {
        if (!tools.some((tool) => tool.kind === "web_search")) tools.push({ kind: "web_search" });
      } else if (tool[key] != null) dropped.push(`tools[${i}].${key}`);
    }
  });
  return tools;
}

function functionTool(
  declaration: Record<string, unknown>,
  path: string,
  dropped: string[],
): IrTool {
  const json = asRecord(field(declaration, "parametersJsonSchema"));
  const schema = field(declaration, "parameters");
  if (field(declaration, "response") != null || field(declaration, "responseJsonSchema") != null) {
    dropped.push(`${path}.response`);
  }
  if (field(declaration, "behavior") != null) dropped.push(`${path}.behavior`);
  const description = field(declaration, "description");
  return {
    kind: "function",
    name: stringField(declaration, "name"),
    ...(typeof description === "string" ? { description } : {}),
    parameters: json ??
      (schema === undefined ? { type: "object", properties: {} } : jsonSchemaOf(schema)),
    strict: false,
  };
}

/**
 * `functionCallingConfig` (`FunctionCallingConfig.Mode`): AUTO, ANY, NONE; VALIDATED (calls
 * checked against their schema, text allowed) reads as AUTO. `allowedFunctionNames` narrows
 * the functions offered; one name under ANY forces that function.
 */
function decodeToolChoice(
  config: Record<string, unknown> | undefined,
  request: IrRequest,
): IrToolChoice | undefined {
  const mode = stringField(config, "mode");
  const allowed = listOf(field(config, "allowedFunctionNames")).filter((n): n is string =>
    typeof n === "string"
  );
  if (allowed.length > 0 && (mode === "ANY" || mode === "VALIDATED")) {
    const names = new Set(allowed);
    request.tools = request.tools.filter((tool) =>
      tool.kind !== "function" || names.has(tool.name)
    );
    if (mode === "ANY" && allowed.length === 1) return { type: "tool", name: allowed[0]! };
  }
  switch (mode) {
    case "AUTO":
    case "VALIDATED":
      return { type: "auto" };
    case "ANY":
      return { type: "required" };
    case "NONE":
      return { type: "none" };
  }
  return undefined;
}

/** `responseMimeType` with its schema: JSON with or without a schema; plain text. */
function decodeOutput(
  config: Record<string, unknown>,
  dropped: string[],
): IrOutputFormat | undefined {
  const mime = stringField(config, "responseMimeType").toLowerCase();
  const json = asRecord(field(config, "responseJsonSchema"));
  const schema = field(config, "responseSchema");
  if (mime === "application/json") {
    // Gemini holds the answer to the schema; OpenAI's strict mode would refuse most schemas
    // written for Gemini (it wants every property required, no additional ones).
    if (json || schema !== undefined) {
      return {
        type: "json_schema",
        name: "response",
        schema: json ?? jsonSchemaOf(schema),
        strict: false,
      };
    }
    return { type: "json_object" };
  }
  if (mime === "" || mime === "text/plain") return mime ? { type: "text" } : undefined;
  dropped.push(`generationConfig.responseMimeType (${mime})`);
  return undefined;
}

/**
 * `thinkingConfig` (`ThinkingConfig`): a budget (0 off, -1 dynamic), a level, or only
 * `includeThoughts` (Gemini CLI's), which asks to see the model's thoughts.
 */
function decodeThinking(
  config: Record<string, unknown> | undefined,
): IrReasoningConfig | undefined {
  if (!config) return undefined;
  const budget = numberField(config, "thinkingBudget");
  if (budget === 0) return { enabled: false };
  const level = effortNamed(stringField(config, "thinkingLevel").toLowerCase());
  const include = field(config, "includeThoughts") === true;
  const reasoning: IrReasoningConfig = { enabled: true };
  if (budget !== undefined && budget > 0) {
    reasoning.budgetTokens = budget;
    reasoning.effort = level ?? effortOfBudget(budget);
  } else if (level) reasoning.effort = level;
  if (include) reasoning.summary = "auto";
  return budget !== undefined || level || include ? reasoning : undefined;
}
