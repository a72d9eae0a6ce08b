/** Reads the API key a client sent, as `x-api-key`, `x-goog-api-key` or `Authorization: Bearer`. */

/**
 * The key from `x-api-key`, `x-goog-api-key` (Google's clients) or a Bearer `Authorization`
 * header; undefined if none.
 */
export function extractApiKey(headers: Pick<Headers, "get">): string | undefined {
  const apiKey = headers.get("x-api-key")?.trim() || headers.get("x-goog-api-key")?.trim();
  if (apiKey) return apiKey;
  const authorization = headers.get("authorization")?.trim();
  if (!authorization) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization);
  return match?.[1]?.trim() || undefined;
}
