/**
 * Embeddings as OpenAI sends them (API reference: "Embeddings", `POST /v1/embeddings`, "The
 * embedding object"): `{"object":"list","data":[{"object":"embedding","index","embedding"}],
 * "model","usage":{"prompt_tokens","total_tokens"}}`, a vector per input in order, of
 * `dimensions` values (1536 by default, text-embedding-3-small's), as numbers or, with
 * `encoding_format: "base64"`, as the base64 of their little-endian float32 bytes. Written
 * for the fakes alone: the values are made by a rule of the fake's own.
 */
import { countTokens } from "gpt-tokenizer";

/** The default vector length (text-embedding-3-small). */
export const FAKE_DIMENSIONS = 1536;

/** The answer to an embeddings body, or the 400 OpenAI gives a body without `input`. */
export function embeddingsAnswer(
  body: Record<string, unknown>,
): { status: number; body: Record<string, unknown> } {
  const input = body.input;
  const items: unknown[] = typeof input === "string"
    ? [input]
    : Array.isArray(input) && input.every((item) => typeof item === "number")
    ? [input]
    : Array.isArray(input)
    ? input
    : [];
  if (items.length === 0 || typeof body.model !== "string") {
    const param = typeof body.model !== "string" ? "model" : "input";
    return {
      status: 400,
      body: {
        error: {
          message: `'${param}' is a required property`,
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      },
    };
  }
  const dimensions = typeof body.dimensions === "number" ? body.dimensions : FAKE_DIMENSIONS;
  let tokens = 0;
  const data = items.map((item, index) => {
    tokens += typeof item === "string" ? countTokens(item) : (item as unknown[]).length;
    const vector = fakeVector(typeof item === "string" ? item : JSON.stringify(item), dimensions);
    return {
      object: "embedding",
      index,
      embedding: body.encoding_format === "base64" ? base64Of(vector) : Array.from(vector),
    };
  });
  return {
    status: 200,
    body: {
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

/** The fake's vector of a text: a rule of its own, the same for the same text. */
export function fakeVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let seed = text.length;
  for (const char of text) seed = (seed * 33 + char.charCodeAt(0)) % 1_000_003;
  for (let i = 0; i < dimensions; i++) vector[i] = (((seed + i * 7919) % 2001) - 1000) / 1000;
  return vector;
}

function base64Of(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, index) => view.setFloat32(index * 4, value, true));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
