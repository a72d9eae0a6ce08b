/**
 * The POST of one webhook delivery (alerts/worker.ts): JSON with the delivery's headers,
 * bounded in time, the answer's status and the start of its body kept for `last_error`.
 * Here because only upstream/ calls fetch (style.md).
 */

/** What one attempt came to: a 2xx, or why not. */
export type WebhookOutcome = { ok: true; status: number } | { ok: false; error: string };

/** Posts `body` to `url` within `timeoutMs`. */
export type WebhookPost = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
) => Promise<WebhookOutcome>;

/** How much of a refusing receiver's body is kept. */
const ERROR_BODY_BYTES = 300;

/** A WebhookPost over `fetchFn` (the runtime's fetch unless a test passes its own). */
export function createWebhookPost(fetchFn: typeof fetch = fetch): WebhookPost {
  return async (url, headers, body, timeoutMs) => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetchFn(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
        signal,
        redirect: "manual",
      });
      if (response.status >= 200 && response.status < 300) {
        await response.body?.cancel();
        return { ok: true, status: response.status };
      }
      const text = await readSome(response);
      return { ok: false, error: `HTTP ${response.status}${text ? `: ${text}` : ""}` };
    } catch (error) {
      if (signal.aborted) return { ok: false, error: `No answer within ${timeoutMs} ms.` };
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
}

/** The start of a body as text, at most ERROR_BODY_BYTES, the rest left unread. */
async function readSome(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) bytes.set(chunk, (at += chunk.length) - chunk.length);
  return new TextDecoder().decode(bytes.subarray(0, ERROR_BODY_BYTES)).replace(/\s+/g, " ").trim();
}
