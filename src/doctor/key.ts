/**
 * The key under test: how it is shown (never in full) and whether its shape alone explains a
 * 401, as the spec's authentication rule 1 asks (complete, no whitespace or line breaks).
 */
import type { Finding } from "./finding.ts";

// Below this length the last four characters are too large a share of the secret to show.
const MIN_LENGTH_TO_SHOW_TAIL = 16;

/** The key as a support report shows it: its prefix and last four characters, `sk-…abcd`. */
export function redactKey(key: string): string {
  const trimmed = key.trim();
  const prefix = /^[A-Za-z]{1,8}-/.exec(trimmed)?.[0] ?? "";
  const tail = trimmed.length >= MIN_LENGTH_TO_SHOW_TAIL ? trimmed.slice(-4) : "";
  return `${prefix}…${tail}`;
}

/** `text` with every occurrence of the key replaced by its redacted form. */
export function redactKeyIn(text: string, key: string): string {
  const trimmed = key.trim();
  // A very short "key" would redact ordinary words; such a key is reported as malformed anyway.
  if (trimmed.length < 4) return text;
  return text.split(trimmed).join(redactKey(trimmed));
}

/** What is wrong with the key's shape before any request is made. */
export function checkKey(key: string): Finding[] {
  const findings: Finding[] = [];
  if (key.trim() === "") {
    findings.push({
      severity: "error",
      code: "key_empty",
      message: "The key is empty: pass the whole key with --key.",
    });
    return findings;
  }
  if (/[\r\n]/.test(key)) {
    findings.push({
      severity: "error",
      code: "key_line_break",
      message:
        "The key contains a line break (often copied with the end of a line): remove it; the probes use the key without it.",
    });
  } else if (key !== key.trim()) {
    findings.push({
      severity: "error",
      code: "key_whitespace",
      message:
        "The key starts or ends with whitespace: remove it from the client's configuration; the probes use the key without it.",
    });
  }
  if (/\s/.test(key.trim())) {
    findings.push({
      severity: "error",
      code: "key_inner_whitespace",
      message: "The key contains whitespace: keys are one word; check it was copied whole.",
    });
  }
  return findings;
}
