/**
 * One token vocabulary across protocols (design.md, "Accounting invariants"): what
 * every protocol's usage report is read into, what the IR carries, and what billing prices.
 */

/**
 * Token usage of one request, in tollgate's vocabulary: `input_tokens` counts every prompt
 * token, cache reads and writes included (OpenAI's convention); `cached_tokens` are cache
 * reads and `cache_write_tokens` cache writes.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  /** Output tokens spent on reasoning, when the upstream reports them (not billed apart). */
  reasoning_tokens?: number;
}
