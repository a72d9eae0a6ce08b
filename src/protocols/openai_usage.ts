/**
 * Reads an OpenAI usage object. Chat completions and responses report the same counts
 * under different names; in both the input count already includes cached tokens, so it
 * maps straight onto tollgate's `input_tokens`.
 */
import { asRecord, tokenCount } from "./json_read.ts";
import type { Usage } from "../usage.ts";

/** The names one OpenAI protocol gives its usage fields. */
export interface OpenAiUsageFields {
  /** The prompt count, cached tokens included. */
  input: string;
  /** The completion count. */
  output: string;
  /** The object holding `cached_tokens` and `cache_write_tokens`. */
  inputDetails: string;
  /** The object holding `reasoning_tokens`. */
  outputDetails: string;
}

/** Usage in tollgate's vocabulary, or undefined when `value` reports neither count. */
export function readOpenAiUsage(value: unknown, fields: OpenAiUsageFields): Usage | undefined {
  const usage = asRecord(value);
  if (!usage || (usage[fields.input] === undefined && usage[fields.output] === undefined)) {
    return undefined;
  }
  const details = asRecord(usage[fields.inputDetails]);
  const read: Usage = {
    input_tokens: tokenCount(usage[fields.input]),
    output_tokens: tokenCount(usage[fields.output]),
    cached_tokens: tokenCount(details?.cached_tokens),
    cache_write_tokens: tokenCount(details?.cache_write_tokens),
  };
  const reasoning = tokenCount(asRecord(usage[fields.outputDetails])?.reasoning_tokens);
  if (reasoning > 0) read.reasoning_tokens = reasoning;
  return read;
}
