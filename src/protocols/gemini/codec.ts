/**
 * The Gemini protocol's translation codec. `decodeRequest` takes the route beside the body
 * (the model and streaming are in the path); called with the body alone, as `Codec` calls
 * it today, the request has the body's `model` if any and does not stream.
 */
import type { IrCodec } from "../../translate/codec.ts";
import { decodeGeminiRequest } from "./request_decode.ts";
import { encodeGeminiRequest } from "./request_encode.ts";
import { decodeGeminiResponse } from "./response_decode.ts";
import { encodeGeminiResponse } from "./response_encode.ts";
import { createGeminiStreamDecoder } from "./stream_decode.ts";
import { createGeminiStreamEncoder } from "./stream_encode.ts";

/** Gemini to and from the IR: requests, whole answers and chunk streams. */
export const geminiCodec = {
  decodeRequest: decodeGeminiRequest,
  encodeRequest: encodeGeminiRequest,
  decodeResponse: decodeGeminiResponse,
  encodeResponse: encodeGeminiResponse,
  createStreamDecoder: createGeminiStreamDecoder,
  createStreamEncoder: createGeminiStreamEncoder,
} satisfies IrCodec;
