import type { Usage } from "../usage.ts";
/**
 * The internal representation every translation goes through: a request, a whole
 * response, and a stream of typed events. Each protocol decodes its own wire format
 * into these types and encodes them back, so a protocol costs two modules, not a
 * converter per pair. Pure data: nothing here knows a wire format.
 */

// ---------------------------------------------------------------------------------
// Content parts
// ---------------------------------------------------------------------------------

/** Plain text. `cacheControl` is Anthropic's prompt-cache marker, kept for messages. */
export interface IrText {
  type: "text";
  text: string;
  cacheControl?: Record<string, unknown>;
}

/** Where an image or document's bytes are. */
export type IrSource =
  | { kind: "url"; url: string }
  | { kind: "base64"; mediaType: string; data: string }
  | { kind: "file"; fileId: string }
  /** Plain text content (messages `document` with a `text` source). */
  | { kind: "text"; text: string };

/** An image the model should look at. */
export interface IrImage {
  type: "image";
  source: IrSource;
  /** OpenAI's `detail`: auto, low or high. */
  detail?: string;
  cacheControl?: Record<string, unknown>;
}

/** A document (PDF, text) given to the model. */
export interface IrDocument {
  type: "document";
  source: IrSource;
  filename?: string;
  title?: string;
  cacheControl?: Record<string, unknown>;
}

/**
 * A tool call the assistant made. `arguments` is JSON text as the model wrote it
 * (a freeform `custom` tool's input is wrapped as `{"input": "..."}`).
 */
export interface IrToolCall {
  type: "tool_call";
  /** The call id results refer to (`call_…`, `toolu_…`). */
  id: string;
  name: string;
  arguments: string;
  /** The responses item id of the call (`fc_…`), when it came from a responses upstream. */
  itemId?: string;
}

/** The result of a tool call, sent back by the client. */
export interface IrToolResult {
  type: "tool_result";
  callId: string;
  content: (IrText | IrImage | IrDocument)[];
  isError?: boolean;
  cacheControl?: Record<string, unknown>;
}

/**
 * Opaque reasoning state an upstream needs back to continue: Anthropic's thinking
 * `signature` or `redacted_thinking` data, OpenAI's `encrypted_content`, Gemini's
 * `thoughtSignature` (which Gemini 3 requires back on a function call). Each encoder
 * puts the kind it speaks natively in its own field and any other kind in its own
 * opaque field wrapped (see opaque.ts), so a client sending history back returns it.
 */
export interface IrOpaque {
  kind: "anthropic_signature" | "anthropic_redacted" | "openai_encrypted" | "gemini_signature";
  value: string;
}

/** Reasoning the model did: its text (or summary) and the opaque state to send back. */
export interface IrReasoning {
  type: "reasoning";
  text: string;
  opaque?: IrOpaque;
  /** The responses reasoning item id (`rs_…`). */
  itemId?: string;
}

/** A refusal the model gave instead of an answer (OpenAI's `refusal`). */
export interface IrRefusal {
  type: "refusal";
  text: string;
}

/** A part of a user turn. */
export type IrUserPart = IrText | IrImage | IrDocument | IrToolResult;
/** A part of an assistant turn (history sent back, or a response). */
export type IrAssistantPart = IrText | IrRefusal | IrToolCall | IrReasoning;
/** Any part. */
export type IrPart = IrUserPart | IrAssistantPart;

// ---------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------

/**
 * One turn of the conversation, in order. Tool results travel in user turns (as
 * messages does); `system` turns are system/developer messages found inside the
 * history (chat, responses, and Claude Code's `role: "system"` messages).
 */
export type IrTurn =
  | { role: "user"; parts: IrUserPart[] }
  | { role: "assistant"; parts: IrAssistantPart[] }
  | { role: "system"; parts: IrText[] };

/** A tool the model may call. */
export type IrTool =
  | {
    kind: "function";
    name: string;
    description?: string;
    /** JSON schema of the arguments object. */
    parameters: Record<string, unknown>;
    /** Strict schema adherence as the client meant it (chat and messages: false unless asked). */
    strict: boolean;
    cacheControl?: Record<string, unknown>;
  }
  | {
    /** A tool whose input is free text (responses `custom`); called as a function with `{input}`. */
    kind: "custom";
    name: string;
    description?: string;
    /** The grammar or format the input follows, as the client sent it. */
    format?: Record<string, unknown>;
  }
  | {
    /** Web search run by the provider (responses `web_search`, messages `web_search_*`). */
    kind: "web_search";
    /** The client's tool object, for a target of the same protocol family. */
    options?: Record<string, unknown>;
  };

/** Which tool the model must (or must not) call. */
export type IrToolChoice =
  | { type: "auto" }
  | { type: "required" }
  | { type: "none" }
  | { type: "tool"; name: string };

/** Reasoning effort in OpenAI's words; messages maps it to a thinking budget (see reasoning.ts). */
export type IrEffort = "minimal" | "low" | "medium" | "high";

/** What the client asked of reasoning. */
export interface IrReasoningConfig {
  /** False: explicitly off (messages `thinking.type: "disabled"`, OpenAI effort `none`). */
  enabled: boolean;
  effort?: IrEffort;
  /** A thinking budget in tokens (messages); derived from `effort` where absent. */
  budgetTokens?: number;
  /** OpenAI's reasoning summary setting (auto, concise, detailed). */
  summary?: string;
}

/** The shape the client wants the answer in. */
export type IrOutputFormat =
  | { type: "text" }
  | { type: "json_object" }
  | {
    type: "json_schema";
    name: string;
    schema: Record<string, unknown>;
    strict: boolean;
    description?: string;
  };

/**
 * A request in protocol-neutral terms. Fields a target cannot honour and that would
 * change the answer (`n`, `logprobs`, `previousResponseId`, `audio`) are kept here so
 * the target's encoder can refuse them by name.
 */
export interface IrRequest {
  /** The client's model id (encoders write the channel's upstream model instead). */
  model: string;
  stream: boolean;
  /** Top-level system prompt: chat's leading system messages, `instructions`, messages' `system`. */
  system: IrText[];
  turns: IrTurn[];
  tools: IrTool[];
  toolChoice?: IrToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  /** Messages' `top_k`; no OpenAI equivalent. */
  topK?: number;
  stop: string[];
  reasoning?: IrReasoningConfig;
  output?: IrOutputFormat;
  /** An end-user id (OpenAI `user` / `safety_identifier`, messages `metadata.user_id`). */
  user?: string;
  /** OpenAI's `prompt_cache_key`: the client's name for requests that share a prompt prefix. */
  promptCacheKey?: string;
  /** Chat `n` (choices per request). */
  n?: number;
  /** Token log probabilities were asked for (chat `logprobs`, responses `top_logprobs`). */
  logprobs?: boolean;
  topLogprobs?: number;
  /** Responses' server-side conversation state. */
  previousResponseId?: string;
  /** Responses' `store` as the client set it (the gateway otherwise asks for `false`). */
  store?: boolean;
  /** Audio output was asked for (chat `modalities` with `audio`). */
  audio?: boolean;
  /** Names of client fields that were dropped because no protocol uses them here. */
  dropped: string[];
}

// ---------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------

/** Why the model stopped. */
export type IrFinish =
  | "stop"
  | "length"
  | "tool_calls"
  | "content_filter"
  /** Messages' `pause_turn`: a server tool paused a long turn. */
  | "pause";

/** A whole (non-stream) answer. */
export interface IrResponse {
  /** The upstream's response id. */
  id: string;
  /** The model the upstream says answered. */
  model: string;
  /** Unix seconds, when the upstream says. */
  created?: number;
  parts: IrAssistantPart[];
  finish: IrFinish;
  /** The stop sequence that ended the answer, when one did. */
  stopSequence?: string;
  usage?: Usage;
}

// ---------------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------------

/** The kind of a streamed part, as announced by `part_start`. */
export type IrStreamPart =
  /** `itemId`: the responses message item it belongs to, when a responses upstream says. */
  | { type: "text"; itemId?: string }
  | { type: "refusal"; itemId?: string }
  | { type: "reasoning"; itemId?: string }
  | { type: "tool_call"; id: string; name: string; itemId?: string };

/** An error an upstream reported mid-stream. */
export interface IrStreamError {
  /** The HTTP status it stands for (529 overloaded, 429 rate limited, 500 ...). */
  status: number;
  type?: string;
  message?: string;
}

/**
 * One step of a streamed answer. A decoder guarantees this grammar, whatever its
 * upstream sent: `start` first; parts one at a time, in index order from 0
 * (`part_start`, its deltas, `part_end`); `finish` after the last part ends; `usage`
 * anywhere, each report carrying every count known so far (later ones win);
 * `error` at most once, after which nothing follows.
 */
export type IrEvent =
  | { type: "start"; id: string; model: string; created?: number; usage?: Usage }
  | { type: "part_start"; index: number; part: IrStreamPart }
  | { type: "text_delta"; index: number; text: string }
  | { type: "refusal_delta"; index: number; text: string }
  | { type: "reasoning_delta"; index: number; text: string }
  /** The opaque reasoning state, usually just before the part ends. */
  | { type: "reasoning_opaque"; index: number; opaque: IrOpaque }
  | { type: "arguments_delta"; index: number; json: string }
  | { type: "part_end"; index: number }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: IrFinish; stopSequence?: string }
  | { type: "error"; error: IrStreamError };
