/** The responses protocol's translation codec (`POST /v1/responses`). */
import type { IrCodec } from "../../translate/codec.ts";
import { decodeResponsesRequest } from "./request_decode.ts";
import { encodeResponsesRequest } from "./request_encode.ts";
import { decodeResponsesResponse } from "./response_decode.ts";
import { encodeResponsesResponse } from "./response_encode.ts";
import { createResponsesStreamDecoder } from "./stream_decode.ts";
import { createResponsesStreamEncoder } from "./stream_encode.ts";

/** OpenAI responses to and from the IR: requests, whole answers and event streams. */
export const responsesCodec: IrCodec = {
  decodeRequest: decodeResponsesRequest,
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  encodeResponse: encodeResponsesResponse,
  createStreamDecoder: createResponsesStreamDecoder,
  createStreamEncoder: createResponsesStreamEncoder,
};
