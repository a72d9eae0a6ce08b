/** The messages protocol's translation codec (`POST /v1/messages`). */
import type { IrCodec } from "../../translate/codec.ts";
import { addCacheBreakpoints } from "./cache_breakpoints.ts";
import { decodeMessagesRequest } from "./request_decode.ts";
import { encodeMessagesRequest } from "./request_encode.ts";
import { decodeMessagesResponse } from "./response_decode.ts";
import { encodeMessagesResponse } from "./response_encode.ts";
import { createMessagesStreamDecoder } from "./stream_decode.ts";
import { createMessagesStreamEncoder } from "./stream_encode.ts";

/** Anthropic messages to and from the IR: requests, whole answers and event streams. */
export const messagesCodec: IrCodec = {
  decodeRequest: decodeMessagesRequest,
  // Translated requests get the prompt-cache breakpoints their clients could not set.
  encodeRequest: (request, context) => addCacheBreakpoints(encodeMessagesRequest(request, context)),
  decodeResponse: decodeMessagesResponse,
  encodeResponse: encodeMessagesResponse,
  createStreamDecoder: createMessagesStreamDecoder,
  createStreamEncoder: createMessagesStreamEncoder,
};
