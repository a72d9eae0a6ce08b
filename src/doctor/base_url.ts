/**
 * The shape of a base URL, checked before any request: the mistakes of the spec's Base URL
 * rules (a trailing "/", a repeated "/v1", an endpoint path inside it) and a missing scheme.
 */
import type { Finding } from "./finding.ts";

/** What doctor makes of the base URL it was given. */
export interface BaseUrlCheck {
  /** The value as given. */
  given: string;
  /**
   * The service root the probes use, read as a client reads it: the given value (with a
   * scheme) minus one trailing "/v1", mistakes kept, so the probes meet what a client meets.
   * Null when the value cannot be used at all.
   */
  probeRoot: string | null;
  /** The service root with every mistake found corrected; equal to probeRoot when none. */
  suggestedRoot: string | null;
  findings: Finding[];
}

/** Endpoint paths a client appends itself; finding one in a base URL means it is doubled. */
const ENDPOINT_PATHS = [
  "/chat/completions",
  "/responses",
  "/messages/count_tokens",
  "/messages",
  "/models",
  "/completions",
];

// Hosts a gateway on the same machine or network answers on plain http.
const LOCAL_HOST = /^(localhost|127\.|0\.0\.0\.0|\[::1\]|10\.|192\.168\.)/i;

/** Checks a base URL's shape and derives the service root to probe and the one to suggest. */
export function checkBaseUrl(given: string): BaseUrlCheck {
  const findings: Finding[] = [];
  const unusable = (code: string, message: string): BaseUrlCheck => ({
    given,
    probeRoot: null,
    suggestedRoot: null,
    findings: [...findings, { severity: "error", code, message }],
  });
  let text = given.trim();
  if (text === "") return unusable("base_url_empty", "The base URL is empty.");
  if (text !== given) {
    findings.push({
      severity: "error",
      code: "base_url_whitespace",
      message: "The base URL starts or ends with whitespace: remove it.",
    });
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const scheme = LOCAL_HOST.test(text) ? "http://" : "https://";
    text = `${scheme}${text}`;
    findings.push({
      severity: "error",
      code: "missing_scheme",
      message: `The base URL has no scheme: clients need "http://" or "https://" in front. ` +
        `The probes use "${text}".`,
    });
  }
  const parts = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)([?#].*)?$/i.exec(text);
  const [, scheme = "", host = "", path = "", rest] = parts ?? [];
  if (!/^https?$/i.test(scheme)) {
    return unusable(
      "unsupported_scheme",
      `The base URL "${given}" does not start with "http://" or "https://".`,
    );
  }
  if (host === "" || !URL.canParse(text)) {
    return unusable("base_url_invalid", `The base URL "${given}" is not a valid URL.`);
  }
  const origin = `${scheme.toLowerCase()}://${host}`;
  if (rest !== undefined) {
    findings.push({
      severity: "error",
      code: "base_url_query",
      message: `The base URL carries "${rest}": clients append paths after it, ` +
        `so it ends up in the middle of every URL. Remove it; the probes leave it out.`,
    });
  }
  findings.push(...pathFindings(path));
  const probePath = path.endsWith("/v1") ? path.slice(0, -"/v1".length) : path;
  const suggestedRoot = `${origin}${correctedPath(path)}`;
  return { given, probeRoot: `${origin}${probePath}`, suggestedRoot, findings };
}

/** The mistakes of the spec's Base URL rules 1 and 2 in a base URL's path. */
function pathFindings(path: string): Finding[] {
  const findings: Finding[] = [];
  if (path.endsWith("/")) {
    findings.push({
      severity: "error",
      code: "trailing_slash",
      message: `The base URL ends with "/": clients then call "//v1/..." or "/v1//responses", ` +
        `which gateways answer with 404. Remove the trailing slash.`,
    });
  }
  if (/\/\/./.test(path)) {
    findings.push({
      severity: "error",
      code: "double_slash",
      message: `The base URL's path "${path}" contains "//": write each "/" once.`,
    });
  }
  const repeated = /(?:\/v1){2,}(?=\/|$)/.exec(path);
  if (repeated) {
    findings.push({
      severity: "error",
      code: "doubled_v1",
      message: `The base URL repeats "/v1" ("${repeated[0]}"): clients add "/v1/..." or ` +
        `"/responses" themselves, so every request goes to "/v1/v1/..." and answers 404. ` +
        `Keep one "/v1" for OpenAI-style clients and none for messages-only clients.`,
    });
  }
  const endpoint = ENDPOINT_PATHS.find((candidate) => new RegExp(`${candidate}(?=/|$)`).test(path));
  if (endpoint !== undefined) {
    findings.push({
      severity: "error",
      code: "endpoint_in_base_url",
      message: `The base URL contains the endpoint path "${endpoint}": clients append it ` +
        `themselves (giving "${endpoint}${endpoint}"). Configure the part before it.`,
    });
  }
  return findings;
}

/** The path of the service root: one "/" each, no endpoint path, no trailing "/" or "/v1". */
function correctedPath(path: string): string {
  let corrected = path.replace(/\/{2,}/g, "/");
  for (const endpoint of ENDPOINT_PATHS) {
    const at = corrected.search(new RegExp(`${endpoint}(?=/|$)`));
    if (at >= 0) corrected = corrected.slice(0, at);
  }
  corrected = corrected.replace(/\/+$/, "");
  while (corrected.endsWith("/v1")) corrected = corrected.slice(0, -"/v1".length);
  return corrected.replace(/\/+$/, "");
}

/** The base URL to configure: the service root, with "/v1" for OpenAI-style clients. */
export function baseUrlFor(root: string, withV1: boolean): string {
  return withV1 ? `${root}/v1` : root;
}
