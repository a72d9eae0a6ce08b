/**
 * The client headers tollgate forwards to a channel (versions and opt-ins, never
 * credentials) and the check that each can be sent: a value with a control character or
 * a character outside ASCII cannot go into an HTTP/1.1 head as tollgate writes it, so it
 * is the client's 400, refused before any channel is tried: never a 502, never a failure
 * counted against a channel.
 */
import { GatewayError } from "../errors.ts";
import { FIELD_VALUE } from "./http1/fields.ts";

/** Client headers forwarded upstream, by the channel's protocol family. */
export const FORWARDED_HEADERS = {
  anthropic: ["anthropic-version", "anthropic-beta"],
  openai: ["openai-beta"],
} as const;

/** Every header a client may have forwarded, whichever channel serves it. */
const ANY_FAMILY: readonly string[] = [...FORWARDED_HEADERS.anthropic, ...FORWARDED_HEADERS.openai];

/** Headers as the client sent them: a Headers object, or a Map by lowercase name. */
export interface ClientHeaders {
  get(name: string): string | null | undefined;
}

/**
 * Throws 400 `invalid_request`, naming the header, when a forwarded client header has a
 * value an upstream could not be sent. The relay calls it before routing.
 */
export function checkForwardedHeaders(headers: ClientHeaders): void {
  for (const name of ANY_FAMILY) {
    const value = headers.get(name);
    if (value) checkForwardedValue(name, value);
  }
}

/** The first character a header value tollgate writes may not hold (FIELD_VALUE's complement). */
const UNSENDABLE = /[^\t\x20-\x7e]/u;

/** Throws the 400 of checkForwardedHeaders unless `value` can be sent as header `name`. */
export function checkForwardedValue(name: string, value: string): void {
  if (FIELD_VALUE.test(value)) return;
  const found = UNSENDABLE.exec(value)!;
  const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  throw new GatewayError(
    400,
    "invalid_request",
    `Header "${name}" cannot be forwarded upstream: its value has the character U+${code} ` +
      `at offset ${found.index}, and may hold only visible ASCII, spaces and tabs. ` +
      "Send the header without it.",
  );
}
