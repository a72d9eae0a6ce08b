/**
 * The Gemini protocol (Gemini API reference: `models.generateContent`,
 * `models.streamGenerateContent` with `?alt=sse`, `models.countTokens`). Unlike the other
 * protocols its model and whether it streams are in the path
 * (`/models/{model}:streamGenerateContent`), not the body: parsing takes them from the
 * route, and a channel's path is made for each model.
 *
 * It implements `Protocol` but for three members the interface cannot yet express (typed
 * `GeminiProtocol`): its `name` is not an `EntryProtocol` yet, `upstream` builds its path
 * from the model and takes the key as `x-goog-api-key`, and `parseRequest` takes the route.
 */
import * as z from "zod/mini";
import { asRecord } from "../json_read.ts";
import type { Protocol } from "../protocol.ts";
import { readEnvelope } from "../request.ts";
import { model as modelSchema } from "../schema_fields.ts";
import type { EntryRequest } from "../types.ts";
import { buildGenerateContentEvents, buildGenerateContentResponse } from "./build.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { numberField, objectField } from "./fields.ts";
import { contentList, CountTokensRequestSchema, GenerateContentRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, encodeUsage, usageFromResponse } from "./usage.ts";

/** What the path of a request says: the model, and whether the answer streams. */
export interface GeminiRoute {
  model: string;
  stream: boolean;
}

/** A parsed Gemini request (`EntryRequest` with the protocol `gemini`). */
export type GeminiEntryRequest = Omit<EntryRequest, "protocol"> & { protocol: "gemini" };

/** How a Gemini channel is called: its `base_url` ends in the API version (`.../v1beta`). */
export interface GeminiUpstreamWire {
  /** `/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`. */
  path(model: string, stream: boolean): string;
  /** `/models/{model}:countTokens`. */
  countTokensPath(model: string): string;
  /** The channel key goes in `x-goog-api-key` (Gemini API reference, "API keys"). */
  readonly credential: "x-goog-api-key";
  readonly forwardedHeaders: readonly string[];
  /** Never: the client's query may hold its tollgate key (`?key=`). */
  readonly keepsQuery: false;
}

/** The Gemini protocol's members, typed where `Protocol` cannot say them yet. */
export type GeminiProtocol = Omit<Protocol, "name" | "upstream" | "parseRequest"> & {
  readonly name: "gemini";
  readonly upstream: GeminiUpstreamWire;
  /** Validates a body against the route's model; throws a 400 `invalid_request` naming the field. */
  parseRequest(body: unknown, route: GeminiRoute): GeminiEntryRequest;
};

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

/** The Gemini protocol. */
export const gemini: GeminiProtocol = {
  name: "gemini",
  upstream: {
    path: (model, stream) =>
      `/models/${modelSegment(model)}:${
        stream ? "streamGenerateContent?alt=sse" : "generateContent"
      }`,
    countTokensPath: (model) => `/models/${modelSegment(model)}:countTokens`,
    credential: "x-goog-api-key",
    forwardedHeaders: [],
    keepsQuery: false,
  },
  overloadedStatus: 503,
  fields: { input: "contents", maxOutput: "generationConfig.maxOutputTokens" },
  conversation: { leading: "systemInstruction", turns: "contents" },
  idPrefix: "",
  // Gemini CLI's stream parser stalls on an SSE comment: a silent stream is kept with nothing.
  keepalive: "",
  parseRequest(body, route) {
    const { body: object } = readEnvelope(GenerateContentRequestSchema, body);
    const model = readModel(route.model);
    const max = numberField(objectField(object, "generationConfig"), "maxOutputTokens");
    const request: GeminiEntryRequest = {
      protocol: "gemini",
      model,
      stream: route.stream,
      body: object,
    };
    if (max !== undefined) request.maxOutputTokens = max;
    return request;
  },
  promptText,
  usageFromResponse,
  createUsageTap,
  encodeUsage,
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

function readModel(model: string): string {
  return readEnvelope(RouteSchema, { model }).fields.model;
}

/** A `models/{model}:countTokens` request: the model and a generateContent-shaped body. */
export interface GeminiCountTokensRequest {
  model: string;
  /** `{contents}`, or the client's `generateContentRequest`. */
  body: Record<string, unknown>;
}

/** Validates a countTokens body; throws like `parseRequest`. */
export function parseCountTokensRequest(body: unknown, model: string): GeminiCountTokensRequest {
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
