/** The chat-completions protocol's translation codec (`POST /v1/chat/completions`). */
import type { IrCodec } from "../../translate/codec.ts";
import { decodeChatRequest } from "./request_decode.ts";
import { encodeChatRequest } from "./request_encode.ts";
import { decodeChatResponse } from "./response_decode.ts";
import { encodeChatResponse } from "./response_encode.ts";
import { createChatStreamDecoder } from "./stream_decode.ts";
import { createChatStreamEncoder } from "./stream_encode.ts";

/** Chat completions to and from the IR: requests, whole answers and chunk streams. */
export const chatCodec: IrCodec = {
  decodeRequest: decodeChatRequest,
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  encodeResponse: encodeChatResponse,
  createStreamDecoder: createChatStreamDecoder,
  createStreamEncoder: createChatStreamEncoder,
};
