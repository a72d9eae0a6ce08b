/**
 * The Gemini protocol (Gemini API reference: `models.generateContent`,
 * `models.streamGenerateContent` with `?alt=sse`, `models.countTokens`). Unlike the other
 * protocols its model and whether it streams are in the path
 * (`/models/{model}:streamGenerateContent`), not the body: parsing takes them from the
 * route, a channel's path is made for each model, and a channel of its own is sent the
 * client's body as it is (no `model` in it to map). Its channel key goes in
 * `x-goog-api-key` (Gemini API reference, "API keys"), and the client's query never goes
 * along (it may hold the client's tollgate key as `?key=`).
 *
 * Registered (protocols/index.ts), but not yet an entry point or a channel protocol: the
 * config's enums and the routes do not name it.
 */
import * as z from "zod/mini";
import type { ClientRequest, Passthrough, RequestRoute } from "../../translate/codec.ts";
import { asRecord } from "../json_read.ts";
import { collectText, conversationStart } from "../prompt_text.ts";
import type { Protocol, TokenCountEndpoint } from "../protocol.ts";
import { readEnvelope } from "../request.ts";
import { model as modelSchema } from "../schema_fields.ts";
import type { EntryRequest } from "../types.ts";
import { buildGenerateContentEvents, buildGenerateContentResponse } from "./build.ts";
import { geminiCodec } from "./codec.ts";
import { GEMINI_SHAPE, streamError, streamErrorEvents } from "./errors.ts";
import { numberField, objectField } from "./fields.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { contentList, CountTokensRequestSchema, GenerateContentRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, usageFromResponse } from "./usage.ts";

/** What the path of a request says: the model, and whether the answer streams. */
export interface GeminiRoute extends RequestRoute {
  model: string;
  stream: boolean;
}

/** The methods of a model a client may call, as the path names them after the colon. */
export type GeminiMethod = "generateContent" | "streamGenerateContent" | "countTokens";
const METHODS: readonly string[] = ["generateContent", "streamGenerateContent", "countTokens"];

/**
 * The model and method of a path's last segment, `{model}:{method}` (what follows
 * `/models/`); undefined when it names no model or no method tollgate serves.
 */
export function parseMethodPath(
  segment: string,
): { model: string; method: GeminiMethod } | undefined {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  const colon = decoded.lastIndexOf(":");
  const model = decoded.slice(0, colon);
  const method = decoded.slice(colon + 1);
  if (colon <= 0 || !METHODS.includes(method) || model.includes("/")) return undefined;
  return { model, method: method as GeminiMethod };
}

/** A model id as a path segment: a `models/` prefix a model map may give is dropped. */
function modelSegment(model: string): string {
  return encodeURIComponent(model.replace(/^models\//, ""));
}

/** A Gemini request to a Gemini channel: the client's body as it is, its model in the path. */
function unchanged(request: ClientRequest): Passthrough {
  return { body: () => request.body, bytes: (_model, raw) => raw, hides: () => false };
}

/** A content without a role is the user's (the API's default for a single turn). */
const CONTENTS = {
  content: "parts",
  isUser: (role: unknown) => role === undefined || role === "user",
};

/** `models/{model}:countTokens`. */
const countTokens: TokenCountEndpoint = {
  parseRequest: (body, route) => parseCountTokensRequest(body, route.model),
  answer: countTokensResponse,
};

/** The Gemini protocol. */
export const gemini: Protocol = {
  ...geminiCodec,
  name: "gemini",
  upstream: {
    path: (model, stream) =>
      `/models/${modelSegment(model)}:${
        stream ? "streamGenerateContent?alt=sse" : "generateContent"
      }`,
    countTokensPath: (model) => `/models/${modelSegment(model)}:countTokens`,
    modelInPath: true,
    credential: { header: "x-goog-api-key" },
    forwardedHeaders: [],
    keepsQuery: false,
  },
  errorShape: GEMINI_SHAPE,
  overloadedStatus: 503,
  fields: { input: "contents", maxOutput: "generationConfig.maxOutputTokens" },
  conversation: {
    start: (body) =>
      conversationStart(
        collectText(objectField(body, "systemInstruction")?.parts),
        body.contents,
        CONTENTS,
      ),
  },
  idPrefix: "",
  // Gemini CLI's stream parser stalls on an SSE comment: a silent stream is kept with nothing.
  keepalive: "",
  takesPrefill: true,
  countTokens,
  parseRequest(body, route) {
    const { body: object } = readEnvelope(GenerateContentRequestSchema, body);
    const model = readModel(route.model);
    const max = numberField(objectField(object, "generationConfig"), "maxOutputTokens");
    const request: EntryRequest = {
      protocol: "gemini",
      model,
      stream: route.stream === true,
      body: object,
    };
    if (max !== undefined) request.maxOutputTokens = max;
    return request;
  },
  passthrough: unchanged,
  promptText,
  usageFromResponse,
  createUsageTap,
  responseText,
  eventText,
  buildReply: (reply) => buildGenerateContentResponse(reply),
  buildReplyEvents: (reply) => buildGenerateContentEvents(reply),
  streamErrorEvents,
  streamError,
  streamContent,
  streamEnded,
};

// The model of the path, checked as the other protocols check a body's `model`.
const RouteSchema = z.object({ model: modelSchema });

function readModel(model: string | undefined): string {
  return readEnvelope(RouteSchema, { model }).fields.model;
}

/** A `models/{model}:countTokens` request: the model and a generateContent-shaped body. */
export interface GeminiCountTokensRequest {
  model: string;
  /** `{contents}`, or the client's `generateContentRequest`. */
  body: Record<string, unknown>;
}

/** Validates a countTokens body; throws like `parseRequest`. */
export function parseCountTokensRequest(
  body: unknown,
  model: string | undefined,
): GeminiCountTokensRequest {
  const { body: object } = readEnvelope(CountTokensRequestSchema, body);
  const request = asRecord(object.generateContentRequest);
  if (object.contents != null) {
    return { model: readModel(model), body: { contents: object.contents } };
  }
  if (request) return { model: readModel(model), body: request };
  // Neither: the fault is told as a missing `contents`.
  readEnvelope(z.object({ contents: contentList }), body);
  throw new Error("unreachable: a body without contents passed the contents check");
}

/** A countTokens answer (`CountTokensResponse`). */
export function countTokensResponse(totalTokens: number): Record<string, unknown> {
  return { totalTokens, promptTokensDetails: [{ modality: "TEXT", tokenCount: totalTokens }] };
}
