/**
 * The Gemini entry point's handlers (design.md, "Gemini entry point"; Gemini API reference,
 * `models.generateContent`, `models.streamGenerateContent`, `models.countTokens`,
 * `models.list`, `models.get`): a model's method, `POST …/models/{model}:{method}`, relayed
 * or counted as the other entry points are, and the model list and records in Google's
 * shape. The model and whether the answer streams come from the path; the query (`alt=sse`,
 * perhaps the client's `key`) never goes upstream.
 */
import type { Context } from "hono";
import type { Config } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { type GeminiMethod, parseMethodPath } from "../protocols/gemini/index.ts";
import { protocolOf } from "../protocols/index.ts";
import type { Router } from "../routing/router.ts";
import { countTokensHandler } from "./count_tokens.ts";
import { googleAuthenticated, googleListing } from "./gemini_paths.ts";
import { listModels, retrieveModel } from "./models.ts";
import { type EntryPath, type RelayDeps, relayHandler } from "./relay.ts";
import type { GatewayEnv } from "./request_context.ts";

/** The model and method a request's path names (`{model}:{method}`), or a 404. */
function methodOf(c: Context<GatewayEnv>): { model: string; method: GeminiMethod } {
  const segment = c.req.param("call") ?? "";
  const found = parseMethodPath(segment);
  if (!found) {
    throw new GatewayError(
      404,
      "not_found",
      `Unknown method in ${c.req.path}: tollgate serves models/{model}:generateContent, ` +
        ":streamGenerateContent (with ?alt=sse) and :countTokens.",
    );
  }
  return found;
}

/** The path of a method call: its model and streaming; the query stays here. */
const METHOD_PATH: EntryPath = {
  route(c) {
    const { model, method } = methodOf(c);
    return { model, stream: method === "streamGenerateContent" };
  },
  forwardsQuery: false,
};

/** `POST …/models/{model}:{method}`: generateContent, streamGenerateContent or countTokens. */
export function geminiMethod(deps: RelayDeps) {
  const gemini = protocolOf("gemini");
  const relay = relayHandler(gemini, deps, METHOD_PATH);
  const count = countTokensHandler(gemini, deps, METHOD_PATH);
  return function geminiMethod(c: Context<GatewayEnv>): Promise<Response> {
    const { method } = methodOf(c);
    if (method === "countTokens") return count(c);
    if (method === "streamGenerateContent" && c.req.query("alt") !== "sse") {
      throw new GatewayError(
        400,
        "invalid_request",
        "streamGenerateContent is served as server-sent events only: add ?alt=sse to the URL " +
          "(Google's SDKs and Gemini CLI do).",
        { param: "alt" },
      );
    }
    return relay(c);
  };
}

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;
const METHODS = ["generateContent", "streamGenerateContent", "countTokens"];

/** One model as Google's `Model` resource. */
function geminiModel(config: Config, id: string): Record<string, unknown> {
  const meta = config.models[id];
  const record: Record<string, unknown> = {
    name: `models/${id}`,
    baseModelId: id,
    version: "tollgate",
    displayName: meta?.display_name ?? id,
    description: `${id}, served by tollgate.`,
    supportedGenerationMethods: METHODS,
  };
  if (meta?.context_window !== undefined) record.inputTokenLimit = meta.context_window;
  if (meta?.max_output_tokens !== undefined) record.outputTokenLimit = meta.max_output_tokens;
  if (meta?.reasoning !== undefined) record.thinking = meta.reasoning;
  return record;
}

/** An integer query parameter at least 0, or a 400 naming it. */
function queryCount(c: Context<GatewayEnv>, name: string, fallback: number): number {
  const text = c.req.query(name);
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new GatewayError(
      400,
      "invalid_request",
      `${name} must be a whole number of at least 0, not "${text}".`,
      { param: name },
    );
  }
  return value;
}

/** `GET …/models` in Google's shape: `{models, nextPageToken}`, `pageSize` at a time. */
export function listGeminiModels(router: Router) {
  return function listGeminiModels(c: Context<GatewayEnv>): Response {
    const { config } = c.get("snapshot");
    const ids = router.modelsFor(config, c.get("principal"));
    const asked = queryCount(c, "pageSize", DEFAULT_PAGE_SIZE);
    const size = Math.min(asked === 0 ? DEFAULT_PAGE_SIZE : asked, MAX_PAGE_SIZE);
    // The page token is the offset of the page's first model.
    const start = queryCount(c, "pageToken", 0);
    const page = ids.slice(start, start + size).map((id) => geminiModel(config, id));
    const body: Record<string, unknown> = { models: page };
    if (start + size < ids.length) body.nextPageToken = String(start + size);
    return Response.json(body);
  };
}

/** `GET …/models/{model}` in Google's shape; 404 when the key may not use it. */
export function retrieveGeminiModel(router: Router) {
  return function retrieveGeminiModel(c: Context<GatewayEnv>): Response {
    const { config } = c.get("snapshot");
    const id = (c.req.param("id") ?? "").replace(/^models\//, "");
    if (!router.modelsFor(config, c.get("principal")).includes(id)) {
      throw new GatewayError(
        404,
        "model_not_found",
        `Model "${id}" is not available to this key. List the models it may use with GET models.`,
      );
    }
    return Response.json(geminiModel(config, id));
  };
}

/**
 * `GET /v1/models` and `/v1/models/{id}`: Google's shape for a request that authenticates
 * Google's way while the gemini entry point is exposed, else the OpenAI and Anthropic shape.
 */
export function listAnyModels(router: Router) {
  const google = listGeminiModels(router);
  const openai = listModels(router);
  return function listAnyModels(c: Context<GatewayEnv>): Response {
    return googleAsked(c) ? google(c) : openai(c);
  };
}

/** `GET /v1/models/{id}`, as listAnyModels chooses its shape. */
export function retrieveAnyModel(router: Router) {
  const google = retrieveGeminiModel(router);
  const openai = retrieveModel(router);
  return function retrieveAnyModel(c: Context<GatewayEnv>): Response {
    return googleAsked(c) ? google(c) : openai(c);
  };
}

function googleAsked(c: Context<GatewayEnv>): boolean {
  return googleAuthenticated(c.req.raw) && googleListing(c.get("snapshot").config);
}
