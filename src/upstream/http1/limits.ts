/**
 * Bounds on what an upstream may answer, so that no answer holds more of the gateway's
 * memory or time than its operator allows: a whole answer, a head, a chunk's extensions,
 * a trailer section. Each has a default and a `[server]` config key of the same name.
 */
import { UpstreamFailure } from "../call.ts";

/** What an upstream's answer may take, in bytes. */
export interface AnswerLimits {
  /**
   * A whole (non-stream) answer's body, or one event of a stream (`max_answer_bytes`):
   * a stream is forwarded as it comes, so only what is held at once is bounded.
   */
  maxAnswerBytes: number;
  /** A response head, with the interim (1xx) heads before it (`max_answer_head_bytes`). */
  maxAnswerHeadBytes: number;
  /** The extensions of one chunk, after its size (`max_chunk_extension_bytes`). */
  maxChunkExtensionBytes: number;
  /** The trailer section of a chunked body (`max_trailer_bytes`). */
  maxTrailerBytes: number;
}

/** The defaults of design.md's `[server]` keys. */
export const DEFAULT_ANSWER_LIMITS: Readonly<AnswerLimits> = Object.freeze({
  maxAnswerBytes: 67_108_864,
  maxAnswerHeadBytes: 65_536,
  maxChunkExtensionBytes: 1_024,
  maxTrailerBytes: 16_384,
});

/** `limits` with the defaults for what it leaves out; the defaults themselves when empty. */
export function answerLimits(limits?: Partial<AnswerLimits>): Readonly<AnswerLimits> {
  return limits ? { ...DEFAULT_ANSWER_LIMITS, ...limits } : DEFAULT_ANSWER_LIMITS;
}

/** The failure of an answer over `max_answer_bytes` (502 `upstream_error` in the relay). */
export function answerTooLarge(maxAnswerBytes: number, what = "answer"): UpstreamFailure {
  return new UpstreamFailure(
    "network",
    `The upstream's ${what} is larger than server.max_answer_bytes (${maxAnswerBytes} bytes): ` +
      "ask for a shorter answer, or ask the operator to raise the limit.",
  );
}
