/**
 * The fallback 404, which diagnoses the usual base-URL mistakes of client set-up, and the
 * 405 of a path that takes other methods (the app's `methodNotAllowed` middleware, Hono's,
 * finds them from the routes themselves).
 */
import { GatewayError } from "../errors.ts";

const ENDPOINTS = [
  "/chat/completions",
  "/responses",
  "/messages/count_tokens",
  "/messages",
  "/embeddings",
  "/models",
];

/** The base-URL mistake a path shows (a doubled slash, `/v1` or endpoint), if any. */
export function baseUrlMistake(path: string): string | undefined {
  if (path.includes("//")) {
    return `It contains "//": the base URL ends with "/". Remove the trailing slash from the base URL.`;
  }
  if (/\/v1\/v1(\/|$)/.test(path)) {
    return `It repeats "/v1": the client adds "/v1" to a base URL that already ends in "/v1". Messages-protocol clients (Claude Code, the Anthropic SDK) take the base URL without "/v1".`;
  }
  for (const endpoint of ENDPOINTS) {
    if (path.split(endpoint).length > 2) {
      return `It repeats "${endpoint}": the base URL already contains the endpoint path. Set the base URL to the gateway root plus "/v1" and let the client add "${endpoint}".`;
    }
  }
  return undefined;
}

/** What went wrong with a path that matched no route, and what to configure instead. */
export function diagnosePath(path: string, method: string): string {
  const unknown = `Unknown path ${method} ${path}.`;
  const mistake = baseUrlMistake(path);
  if (mistake) return `${unknown} ${mistake}`;
  const endpoint = ENDPOINTS.find((e) => path === e || path.startsWith(`${e}/`));
  if (endpoint && !path.startsWith("/v1/")) {
    return `${unknown} It is missing "/v1": OpenAI-protocol clients take the base URL with "/v1" at the end (so the client calls /v1${endpoint}).`;
  }
  if (ENDPOINTS.some((e) => path === `/v1${e}`)) {
    return `${unknown} ${path} takes ${path === "/v1/models" ? "GET" : "POST"}, not ${method}.`;
  }
  return `${unknown} tollgate serves GET /v1/models and POST /v1/chat/completions, /v1/responses, /v1/messages and /v1/embeddings (and Gemini's /v1beta/models/{model}:generateContent).`;
}

/** The 404 for an unmatched path, naming the likely base-URL mistake. */
export function pathNotFound(path: string, method: string): GatewayError {
  return new GatewayError(404, "not_found", diagnosePath(path, method));
}

/** The 405 for a path whose routes take only `allow` (Hono's router knows which). */
export function methodNotAllowed(
  path: string,
  method: string,
  allow: readonly string[],
): GatewayError {
  return new GatewayError(
    405,
    "method_not_allowed",
    `${path} takes ${allow.join(" or ")}, not ${method}.`,
    { headers: { allow: allow.join(", ") }, messagesType: "invalid_request_error" },
  );
}
