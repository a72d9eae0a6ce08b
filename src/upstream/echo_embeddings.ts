/**
 * The echo channel's embeddings: deterministic vectors, one per input, in OpenAI's answer
 * shape (`CreateEmbeddingResponse`). Each vector is drawn from a generator seeded with a
 * hash of its input (a text, or its token ids) and scaled to unit length, so that the same
 * input always has the same vector, as a real model's would. `dimensions` sets the length
 * (default 256); `encoding_format: "base64"` gives each vector as the base64 of its
 * little-endian float32 values, as OpenAI does. Usage counts the input tokens honestly.
 */
import {
  embeddingInputs,
  type EmbeddingsRequest,
  parseEmbeddingsRequest,
} from "../protocols/chat/embeddings.ts";
import type { CountTokens } from "../tokens/token_count.ts";

/** Vector length when the request sets no `dimensions`. */
export const ECHO_DIMENSIONS = 256;

/** The echo's answer to an embeddings body, for `model` (as the channel knows it). */
export function echoEmbeddings(
  body: Record<string, unknown>,
  options: { model: string; count: CountTokens },
): Response {
  const { fields } = parseEmbeddingsRequest(body);
  const inputs = embeddingInputs(fields.input);
  const dimensions = fields.dimensions ?? ECHO_DIMENSIONS;
  const tokens = embeddingInputTokens(fields.input, options.count);
  return Response.json({
    object: "list",
    data: inputs.map((input, index) => {
      const vector = echoVector(input, dimensions);
      return {
        object: "embedding",
        index,
        embedding: fields.encoding_format === "base64" ? float32Base64(vector) : Array.from(vector),
      };
    }),
    model: options.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/** The input tokens of a request's `input`: texts counted, token arrays by their length. */
export function embeddingInputTokens(input: EmbeddingsRequest["input"], count: CountTokens) {
  let tokens = 0;
  for (const item of embeddingInputs(input)) {
    tokens += typeof item === "string" ? count(item) : item.length;
  }
  return tokens;
}

/** A unit vector of `dimensions` float32 values, determined by `input`. */
export function echoVector(input: string | number[], dimensions: number): Float32Array {
  let state = fnv1a(typeof input === "string" ? input : `tokens:${input.join(",")}`);
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    // mulberry32: a small, well-mixed 32-bit generator.
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const value = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
    vector[i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < dimensions; i++) vector[i] = vector[i]! * scale;
  return vector;
}

/** FNV-1a over a string's UTF-16 code units: the generator's seed. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A vector as OpenAI's base64 encoding: its float32 values, little-endian. */
function float32Base64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, index) => view.setFloat32(index * 4, value, true));
  let binary = "";
  // In slices: spreading 256 KiB of arguments at once would overflow the stack.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}
