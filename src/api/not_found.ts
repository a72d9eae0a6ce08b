/** The fallback 404, which diagnoses the usual base-URL mistakes of client set-up. */
import { GatewayError } from "../errors.ts";

const ENDPOINTS = [
  "/chat/completions",
  "/responses",
  "/messages/count_tokens",
  "/messages",
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
  return `${unknown} tollgate serves GET /v1/models and POST /v1/chat/completions, /v1/responses and /v1/messages.`;
}

/** The 404 for an unmatched path, naming the likely base-URL mistake. */
export function pathNotFound(path: string, method: string): GatewayError {
  return new GatewayError(404, "not_found", diagnosePath(path, method));
}

/** The paths tollgate serves and the methods each takes (HEAD with every GET). */
const ROUTES: readonly [RegExp, readonly string[]][] = [
  [/^\/(healthz|readyz|metrics)$/, ["GET", "HEAD"]],
  [/^\/v1\/models(\/[^/]+)?$/, ["GET", "HEAD"]],
  [/^\/v1\/(chat\/completions|responses|messages|messages\/count_tokens)$/, ["POST"]],
  [/^\/v1\/responses\/[^/]+$/, ["GET", "HEAD", "DELETE"]],
  [/^\/v1\/responses\/[^/]+\/input_items$/, ["GET", "HEAD"]],
];

/**
 * The methods `path` takes, for a 405's `Allow`; none when tollgate does not serve it, or
 * when the path is a base-URL mistake (`/v1/responses/responses` is no response's id).
 */
export function allowedMethods(path: string): readonly string[] {
  if (baseUrlMistake(path)) return [];
  return ROUTES.find(([pattern]) => pattern.test(path))?.[1] ?? [];
}
