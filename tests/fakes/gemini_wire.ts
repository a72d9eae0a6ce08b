/**
 * Gemini's `generateContent` as Google sends it (Gemini API reference: "Generating content",
 * `GenerateContentResponse`, `Candidate`, `UsageMetadata`; "Thinking" and "Thought
 * signatures"; `@google/genai` types): one candidate whose content has role `model`, thought
 * parts marked `thought: true`, the thought signature on the first part after the thoughts,
 * function calls whole (no id, as the Gemini API sends them) with `args` as an object,
 * `finishReason` `STOP` for calls too, and usage with `candidatesTokenCount` not counting
 * thoughts (`thoughtsTokenCount`). A stream (`?alt=sse`) is a `data:` line per chunk,
 * separated by CRLF pairs, each chunk carrying `usageMetadata` so far; the last one the
 * finish reason and every count. Errors are Google's `{"error": {code, message, status}}`.
 */
import {
  type FakeReply,
  finishOf,
  frameList,
  pieces,
  type WireContext,
  type WireFrame,
} from "./reply.ts";

const FINISH = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_calls: "STOP",
  content_filter: "SAFETY",
} as const;

type Part = Record<string, unknown>;

/** The parts of a whole reply: thoughts, text, calls; the signature after the thoughts. */
function parts(reply: FakeReply): Part[] {
  const out: Part[] = [];
  if (reply.reasoning) out.push({ text: reply.reasoning.text, thought: true });
  if (reply.text) out.push({ text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    out.push({ functionCall: { name: call.name, args: JSON.parse(call.arguments) } });
  }
  signFirstAfterThoughts(out, reply);
  return out;
}

function signFirstAfterThoughts(list: Part[], reply: FakeReply): void {
  const signature = reply.reasoning?.opaque;
  if (!signature) return;
  const first = list.find((part) => part.thought !== true) ?? list.at(-1);
  if (first) first.thoughtSignature = signature;
}

/** `usageMetadata`; `final` false: a chunk before the last (prompt counts only). */
function usageMetadata(context: WireContext, final: boolean): Record<string, unknown> | undefined {
  const { usage } = context;
  if (!usage) return undefined;
  const prompt = {
    promptTokenCount: usage.input,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.input }],
  };
  if (!final) return { ...prompt, totalTokenCount: usage.input };
  const candidates = usage.output - usage.reasoning;
  return {
    ...prompt,
    ...(candidates > 0 ? { candidatesTokenCount: candidates } : {}),
    totalTokenCount: usage.input + usage.output,
    ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
    ...(usage.reasoning ? { thoughtsTokenCount: usage.reasoning } : {}),
  };
}

function response(
  context: WireContext,
  content: Part[],
  finish: string | undefined,
  usage: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts: content, role: "model" } };
  if (finish) candidate.finishReason = finish;
  candidate.index = 0;
  return {
    candidates: [candidate],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: context.model,
    responseId: context.id,
  };
}

/** The whole `GenerateContentResponse`. */
export function geminiBody(reply: FakeReply, context: WireContext): Record<string, unknown> {
  return response(context, parts(reply), FINISH[finishOf(reply)], usageMetadata(context, true));
}

/** One SSE frame as Google writes it: `data:` and a CRLF pair. */
export function geminiFrame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

/**
 * The frames of a stream: a chunk per thought and text piece, each function call whole in
 * a chunk of its own, then a closing chunk with an empty text part, the finish reason and
 * the whole usage (as Gemini 2.5 ends a stream).
 */
export function geminiStream(reply: FakeReply, context: WireContext): WireFrame[] {
  const list = frameList();
  const signature = reply.reasoning?.opaque;
  let signed = false;
  const sign = (part: Part) => {
    if (signature && !signed) part.thoughtSignature = signature;
    signed = true;
    return part;
  };
  const chunk = (part: Part) =>
    list.add(
      geminiFrame(response(context, [part], undefined, usageMetadata(context, false))),
      "content",
    );
  for (const piece of pieces(reply.reasoning?.text ?? "")) chunk({ text: piece, thought: true });
  for (const piece of pieces(reply.text)) chunk(sign({ text: piece }));
  for (const call of reply.toolCalls ?? []) {
    chunk(sign({ functionCall: { name: call.name, args: JSON.parse(call.arguments) } }));
  }
  const finish = FINISH[finishOf(reply)];
  list.add(
    geminiFrame(response(context, [{ text: "" }], finish, usageMetadata(context, true))),
    "closing",
  );
  return list.frames;
}

/** Google's status name for an HTTP status (google.rpc.Code). */
export const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Google's words for the errors its API answers most. */
export const GOOGLE_MESSAGE: Record<number, string> = {
  400: "Request contains an invalid argument.",
  429: "You exceeded your current quota, please check your plan and billing details.",
  500: "An internal error has occurred. Please retry or report in " +
    "https://developers.generativeai.google/guide/troubleshooting",
  503: "The model is overloaded. Please try again later.",
  504: "Deadline expired before operation could complete.",
};

/** An error body as the Gemini API sends it. */
export function geminiErrorBody(status: number, message?: string, type?: string) {
  return {
    error: {
      code: status,
      message: message ?? GOOGLE_MESSAGE[status] ?? `The fake upstream answered ${status}.`,
      status: type ?? GOOGLE_STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"),
    },
  };
}

/** The error chunk of a broken stream. */
export function geminiErrorFrame(message: string, type?: string): string {
  const status = type === "UNAVAILABLE" ? 503 : 500;
  return geminiFrame(geminiErrorBody(status, message, type));
}
