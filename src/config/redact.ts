/**
 * Redaction of the config's secrets from upstream text: a channel's keys and `headers`
 * values, the alert webhooks' secrets and the metrics token, found in an upstream's error
 * body or a stream's error event (an upstream that echoes the key it was sent), become
 * `[redacted]` before the text is relayed to a client, logged or stored. Built once per
 * config snapshot (a reload brings its own secrets).
 */
import { perConfig } from "./per_config.ts";
import type { Config } from "./schema.ts";

/** What replaces a secret. */
export const REDACTED = "[redacted]";

/** Secrets shorter than this are not looked for: they would match ordinary words. */
const MIN_SECRET_CHARS = 6;

/** Replaces every secret of a config in a text. */
export type Redact = (text: string) => string;

/** Leaves a text as it is: a config without secrets. */
export const noRedaction: Redact = (text) => text;

/** The secrets of `config`, longest first (one that contains another goes whole). */
export function secretsOf(config: Config): string[] {
  const secrets = new Set<string>();
  const add = (value: string | undefined) => {
    const secret = value?.trim();
    if (secret && secret.length >= MIN_SECRET_CHARS) secrets.add(secret);
  };
  for (const channel of config.channels) {
    channel.keys.forEach(add);
    for (const value of Object.values(channel.headers)) {
      add(value);
      // `Bearer sk-...` echoed without its scheme still carries the key.
      add(/^\S+\s+(\S{6,})$/.exec(value)?.[1]);
    }
  }
  for (const webhook of config.alerts.webhooks) {
    add(webhook.secret);
    // A Standard Webhooks secret is used by its base64 part.
    add(webhook.secret.replace(/^whsec_/, ""));
  }
  add(config.server.metrics_token);
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** The redaction of `config`'s secrets, made once per config object. */
export const redactorOf: (config: Config) => Redact = perConfig((config) => {
  const secrets = secretsOf(config);
  if (secrets.length === 0) return noRedaction;
  return (text) => {
    let out = text;
    for (const secret of secrets) {
      if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    }
    return out;
  };
});
