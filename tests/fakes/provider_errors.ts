/**
 * Error answers in the providers' own shapes and words: OpenAI's
 * `{"error":{message,type,param,code}}` (API reference "Error codes") for chat and
 * responses, Anthropic's `{"type":"error","error":{type,message},"request_id"}` ("Errors")
 * for messages. The sentences are the ones the providers send.
 */
import type { FakeError, WireProtocol } from "./behaviour.ts";
import { geminiErrorBody } from "./gemini_wire.ts";

const OPENAI_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_denied",
  404: "invalid_request_error",
  429: "requests",
};

const OPENAI_MESSAGE: Record<number, string> = {
  429: "Rate limit reached for requests per min (RPM): Limit 60, Used 60, Requested 1. " +
    "Please try again in 1s. Visit https://platform.openai.com/account/rate-limits to learn more.",
  500: "The server had an error while processing your request. Sorry about that!",
  503: "The engine is currently overloaded, please try again later.",
};

const ANTHROPIC_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

const ANTHROPIC_MESSAGE: Record<number, string> = {
  429: "Number of requests has exceeded your per-minute rate limit " +
    "(https://docs.anthropic.com/en/api/rate-limits); see the response headers for current " +
    "usage. Please reduce the prompt length or the maximum tokens requested, or try again later.",
  500: "Internal server error",
  503: "Service unavailable",
  529: "Overloaded",
};

/** The body of `error` as the protocol's provider sends it. */
export function errorBody(
  protocol: WireProtocol | "gemini",
  error: FakeError,
  requestId: string,
): Record<string, unknown> {
  const verbatim = error.body?.[protocol];
  if (protocol === "gemini") {
    return verbatim ?? geminiErrorBody(error.status, error.message, error.type);
  }
  if (verbatim) return protocol === "messages" ? { ...verbatim, request_id: requestId } : verbatim;
  const generic = `The fake upstream answered ${error.status}.`;
  if (protocol === "messages") {
    const type = error.type ?? ANTHROPIC_TYPE[error.status] ?? "api_error";
    const message = error.message ?? ANTHROPIC_MESSAGE[error.status] ?? generic;
    return { type: "error", error: { type, message }, request_id: requestId };
  }
  const type = error.type ?? OPENAI_TYPE[error.status] ?? "server_error";
  const message = error.message ?? OPENAI_MESSAGE[error.status] ?? generic;
  const code = error.code !== undefined
    ? error.code
    : error.status === 429
    ? "rate_limit_exceeded"
    : null;
  return { error: { message, type, param: error.param ?? null, code } };
}

/** A 400 in each provider's shape with the same words (messages has no `param`/`code`). */
function invalidRequest(message: string, param: Record<"chat" | "responses", string | null>) {
  const openai = (param: string | null) => ({
    error: { message, type: "invalid_request_error", param, code: null },
  });
  return {
    chat: openai(param.chat),
    responses: openai(param.responses),
    messages: { type: "error", error: { type: "invalid_request_error", message } },
  };
}

/**
 * 400 context length exceeded, in each provider's words: a prompt of `tokens` against a
 * window of `window` (defaults: 130,412 > 128,000 for OpenAI, 210,384 > 200,000 for
 * Anthropic; the responses message names no numbers).
 */
export function contextLengthError(counts: { window?: number; tokens?: number } = {}): FakeError {
  const openaiWindow = counts.window ?? 128_000;
  const openaiTokens = counts.tokens ?? 130_412;
  const error = (message: string, param: string) => ({
    error: { message, type: "invalid_request_error", param, code: "context_length_exceeded" },
  });
  const chat = `This model's maximum context length is ${openaiWindow} tokens. However, your ` +
    `messages resulted in ${openaiTokens} tokens. Please reduce the length of the messages.`;
  const responses = "Your input exceeds the context window of this model. " +
    "Please adjust your input and try again.";
  const messages = `prompt is too long: ${counts.tokens ?? 210_384} tokens > ` +
    `${counts.window ?? 200_000} maximum`;
  return {
    status: 400,
    body: {
      chat: error(chat, "messages"),
      responses: error(responses, "input"),
      messages: { type: "error", error: { type: "invalid_request_error", message: messages } },
    },
  };
}

/**
 * 400 content policy: OpenAI's `content_policy_violation`, or with `azure` Azure OpenAI's
 * `content_filter` (with its `innererror`); Anthropic's `invalid_request_error` naming the
 * Usage Policy.
 */
export function contentPolicyError(azure = false): FakeError {
  const openai = azure
    ? {
      error: {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content " +
          "management policy. Please modify your prompt and retry. To learn more about our " +
          "content filtering policies please read our documentation: " +
          "https://go.microsoft.com/fwlink/?linkid=2198766",
        type: null,
        param: "prompt",
        code: "content_filter",
        status: 400,
        innererror: {
          code: "ResponsibleAIPolicyViolation",
          content_filter_result: {
            hate: { filtered: false, severity: "safe" },
            jailbreak: { filtered: false, detected: false },
            self_harm: { filtered: false, severity: "safe" },
            sexual: { filtered: false, severity: "safe" },
            violence: { filtered: true, severity: "medium" },
          },
        },
      },
    }
    : {
      error: {
        message: "Your request was rejected as a result of our safety system. Your prompt may " +
          "contain text that is not allowed by our safety system.",
        type: "invalid_request_error",
        param: null,
        code: "content_policy_violation",
      },
    };
  const message = "Your request was flagged as potentially violating our Usage Policy " +
    "(https://www.anthropic.com/legal/aup). Please rephrase your request and try again.";
  return {
    status: 400,
    body: {
      chat: openai,
      responses: openai,
      messages: { type: "error", error: { type: "invalid_request_error", message } },
    },
  };
}

/** 400 from a model that takes no assistant prefill. */
export function prefillRefusedError(): FakeError {
  const anthropic = "This model does not support assistant message prefill. " +
    "The conversation must end with a user message.";
  const openai = invalidRequest(
    "Assistant message prefill is not supported for this model. " +
      "The last message must be a user or tool message.",
    { chat: "messages", responses: "input" },
  );
  const { messages } = invalidRequest(anthropic, { chat: null, responses: null });
  return { status: 400, body: { ...openai, messages } };
}

/** Anthropic's 400 for a prefill that ends in whitespace. */
export function trailingWhitespaceError(): FakeError {
  const message = "messages: final assistant content cannot end with trailing whitespace";
  return { status: 400, body: invalidRequest(message, { chat: "messages", responses: "input" }) };
}

/** Anthropic's 400 for a text prefill (the `index`th message) when `thinking` is enabled. */
export function thinkingPrefillError(index: number): FakeError {
  const message = `messages.${index}.content.0.type: Expected \`thinking\` or ` +
    "`redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` " +
    "message must start with a thinking block (preceeding the lastmost set of `tool_use` and " +
    "`tool_result` blocks). We recommend you include thinking blocks from previous turns. To " +
    "avoid this requirement, disable `thinking`. Please consult our documentation at " +
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
  return { status: 400, type: "invalid_request_error", message };
}
