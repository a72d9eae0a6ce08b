/** Reads the API key a client sent, as `x-api-key` or `Authorization: Bearer`. */

/** The key from `x-api-key` or a Bearer `Authorization` header; undefined if neither. */
export function extractApiKey(headers: Pick<Headers, "get">): string | undefined {
  const apiKey = headers.get("x-api-key")?.trim();
  if (apiKey) return apiKey;
  const authorization = headers.get("authorization")?.trim();
  if (!authorization) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization);
  return match?.[1]?.trim() || undefined;
}
