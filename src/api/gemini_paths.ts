/**
 * Which requests are Gemini's (design.md, the Gemini entry point): everything under
 * `/v1beta/`, a model's method under `/v1/models/{model}:{method}` (the `@google/genai`
 * SDK's default API version), and the model list and records under `/v1/models` when the
 * request authenticates Google's way. Those are answered, errors included, in Google's shape.
 */
import type { Config } from "../config/schema.ts";

const GEMINI_METHOD = /^\/v1\/models\/[^/]+:(generateContent|streamGenerateContent|countTokens)$/;

/** Whether a request authenticates Google's way: `x-goog-api-key`, or `?key=` in its URL. */
export function googleAuthenticated(request: Request): boolean {
  if (request.headers.has("x-goog-api-key")) return true;
  const query = request.url.indexOf("?");
  return query >= 0 && new URLSearchParams(request.url.slice(query + 1)).has("key");
}

/**
 * Whether a path is answered in Google's shape: `/v1beta/…`, `/v1/models/{model}:{method}`,
 * and `/v1/models` (or a record under it) for a Google-authenticated request while the
 * config exposes the gemini entry point.
 */
export function speaksGemini(path: string, googleAuth: boolean, config: Config): boolean {
  if (path === "/v1beta" || path.startsWith("/v1beta/")) return true;
  if (!path.startsWith("/v1/models/") && path !== "/v1/models") return false;
  // A model's method; not any colon: OpenAI-style ids may hold one (Ollama's `qwen2.5:7b`).
  if (GEMINI_METHOD.test(path)) return true;
  return googleAuth && googleListing(config);
}

/** Whether `GET /v1/models` may answer in Google's shape: the gemini entry point is exposed. */
export function googleListing(config: Config): boolean {
  return (config.server.entry_points as readonly string[]).includes("gemini");
}
