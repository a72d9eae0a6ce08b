/**
 * OpenAI's embeddings request and answer, as far as tollgate reads them (API reference,
 * "Embeddings": `POST /v1/embeddings`, `CreateEmbeddingRequest`, `CreateEmbeddingResponse`).
 * The endpoint belongs to the OpenAI family, so chat channels (OpenAI-compatible
 * upstreams) serve it; the body passes through untouched but for a mapped `model`.
 */
import * as z from "zod/mini";
import type { Usage } from "../../usage.ts";
import { asRecord, tokenCount } from "../json_read.ts";
import { readEnvelope } from "../request.ts";
import { BODY_EXPECTED, model, nullish } from "../schema_fields.ts";

const INPUT_EXPECTED = {
  error: "a string, or a non-empty array of strings, of token ids or of token-id arrays",
};

/** Whether `value` is a non-empty array of integers (token ids). */
function isTokenArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 &&
    value.every((token) => Number.isSafeInteger(token) && token >= 0);
}

/** `input`: a string, or a non-empty array of strings, of token ids, or of token-id arrays. */
const embeddingInput = z.custom<string | string[] | number[] | number[][]>((value) => {
  if (typeof value === "string") return true;
  if (!Array.isArray(value) || value.length === 0) return false;
  if (value.every((item) => typeof item === "string")) return true;
  if (isTokenArray(value)) return true;
  return value.every(isTokenArray);
}, INPUT_EXPECTED);

const DIMENSIONS_EXPECTED = { error: "an integer from 1 to 65536" };

/** The fields of a `POST /v1/embeddings` body that tollgate reads, in the order faults are told. */
export const EmbeddingsRequestSchema = z.object({
  model,
  input: embeddingInput,
  dimensions: nullish(
    z.int(DIMENSIONS_EXPECTED).check(
      z.minimum(1, DIMENSIONS_EXPECTED),
      z.maximum(65_536, DIMENSIONS_EXPECTED),
    ),
  ),
  encoding_format: nullish(z.enum(["float", "base64"], { error: 'one of "float", "base64"' })),
  user: nullish(z.string({ error: "a string" })),
}, { error: BODY_EXPECTED });

/** What tollgate reads of an embeddings request. */
export type EmbeddingsRequest = z.output<typeof EmbeddingsRequestSchema>;

/** A validated embeddings request and the client's body as it came. */
export interface ParsedEmbeddings {
  fields: EmbeddingsRequest;
  body: Record<string, unknown>;
}

/** Validates an embeddings body; throws a 400 `invalid_request` naming the field at fault. */
export function parseEmbeddingsRequest(body: unknown): ParsedEmbeddings {
  return readEnvelope(EmbeddingsRequestSchema, body);
}

/** Each input of a request: a text, or a token-id array. */
export function embeddingInputs(input: EmbeddingsRequest["input"]): (string | number[])[] {
  if (typeof input === "string") return [input];
  if (isTokenArray(input)) return [input];
  return input as (string | number[])[];
}

/** An embeddings answer's usage (`prompt_tokens`), or undefined when it reports none. */
export function embeddingsUsage(json: unknown): Usage | undefined {
  const usage = asRecord(asRecord(json)?.usage);
  if (!usage || usage.prompt_tokens === undefined) return undefined;
  return {
    input_tokens: tokenCount(usage.prompt_tokens),
    output_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
  };
}
