/**
 * The verdict per client kind of the spec's "Base URL convention for client tools" table:
 * whether that kind of client works with this gateway, key and model, the exact base URL to
 * configure, and which failed probes it would meet.
 */
import { baseUrlFor } from "./base_url.ts";
import { type Auth, ENTRY_POINT_SHAPES, ENTRY_POINTS, type EntryPoint } from "./entry_points.ts";
import type { ProbeResult } from "./probe.ts";

/** The client kinds of the spec's table. */
export type ClientKind =
  | "responses_only_agent"
  | "messages_only_agent"
  | "multi_protocol_agent"
  | "openai_compatible_assistant"
  | "gemini_agent";

/** Whether one entry point works, and with which ways of sending the key. */
export interface EntryPointVerdict {
  entry_point: EntryPoint;
  path: string;
  works: boolean;
  /** The ways of sending the key with which every probe (whole answer and stream) passed. */
  works_with: Auth[];
}

/** One row of the client table. */
export interface ClientVerdict {
  kind: ClientKind;
  /** The kind as the spec names it, with a well-known example. */
  label: string;
  works: boolean;
  /** The exact base URL value to configure in this kind of client. */
  base_url: string;
  /** What the client appends to it. */
  appends: string;
  /** Which setting to choose, or why it fails, in a sentence. */
  note: string;
  /** Ids of the failed probes this kind of client would meet. */
  failed_probes: number[];
}

/** Whether each entry point works: all its probes with one way of sending the key passed. */
export function judgeEntryPoints(results: readonly ProbeResult[]): EntryPointVerdict[] {
  return ENTRY_POINTS.map((entryPoint) => {
    const shape = ENTRY_POINT_SHAPES[entryPoint];
    const worksWith = shape.auths.filter((auth) => works(results, entryPoint, auth));
    return {
      entry_point: entryPoint,
      path: shape.path,
      works: worksWith.length > 0,
      works_with: worksWith,
    };
  });
}

/** The verdict for each client kind, given the service root the probes found working. */
export function judgeClients(root: string, results: readonly ProbeResult[]): ClientVerdict[] {
  const chat = works(results, "chat", "bearer");
  const responses = works(results, "responses", "bearer");
  const messagesApiKey = works(results, "messages", "x-api-key");
  const messagesBearer = works(results, "messages", "bearer");
  const gemini = works(results, "gemini", "x-goog-api-key");
  const failed = (...pairs: [EntryPoint, Auth][]) =>
    results
      .filter((result) =>
        !result.ok &&
        pairs.some(([entryPoint, auth]) => result.endpoint === entryPoint && result.auth === auth)
      )
      .map((result) => result.id);
  const withV1 = baseUrlFor(root, true);
  return [
    {
      kind: "responses_only_agent",
      label: "responses-only coding agent (Codex CLI)",
      works: responses,
      base_url: withV1,
      appends: "/responses",
      note: responses ? "" : "needs /v1/responses, which fails here",
      failed_probes: failed(["responses", "bearer"]),
    },
    {
      kind: "messages_only_agent",
      label: "messages-only coding agent (Claude Code)",
      works: messagesApiKey,
      base_url: baseUrlFor(root, false),
      appends: "/v1/messages",
      note: messagesApiKey
        ? messagesBearer ? "" : "send the key as x-api-key (ANTHROPIC_API_KEY), not as Bearer"
        : messagesBearer
        ? "x-api-key is rejected; works only when the key is sent as Bearer " +
          "(Claude Code: ANTHROPIC_AUTH_TOKEN instead of ANTHROPIC_API_KEY)"
        : "needs /v1/messages, which fails here",
      failed_probes: failed(["messages", "x-api-key"]),
    },
    {
      kind: "multi_protocol_agent",
      label: "multi-protocol agent, OpenAI-style package (opencode, AI SDK)",
      works: chat || responses,
      base_url: withV1,
      appends: "/responses or /chat/completions, by package",
      note: chat && responses
        ? "either package"
        : chat
        ? "use a chat-completions package (@ai-sdk/openai-compatible); /v1/responses fails"
        : responses
        ? "use a responses package (@ai-sdk/openai); /v1/chat/completions fails"
        : "needs /v1/chat/completions or /v1/responses; both fail here",
      failed_probes: failed(["chat", "bearer"], ["responses", "bearer"]),
    },
    {
      kind: "openai_compatible_assistant",
      label: "command-line assistant, OpenAI-compatible mode",
      works: chat || responses,
      base_url: withV1,
      appends: "/chat/completions or /responses, by wire API",
      note: chat && responses
        ? "either wire API"
        : chat
        ? "keep the wire API at completions (the default); responses fails"
        : responses
        ? "set the wire API to responses; completions (the default) fails"
        : "needs /v1/chat/completions or /v1/responses; both fail here",
      failed_probes: failed(["chat", "bearer"], ["responses", "bearer"]),
    },
    {
      kind: "gemini_agent",
      label: "Gemini API client (Gemini CLI, @google/genai)",
      works: gemini,
      base_url: baseUrlFor(root, false),
      appends: "/v1beta/models/{model}:streamGenerateContent (the SDK: /v1/...)",
      note: gemini
        ? "Gemini CLI: GOOGLE_GEMINI_BASE_URL (no /v1beta) and GEMINI_API_KEY"
        : "needs /v1beta/models/{model}:generateContent, which fails here",
      failed_probes: failed(["gemini", "x-goog-api-key"]),
    },
  ];
}

/** Whether every probe of one entry point with one way of sending the key passed. */
function works(results: readonly ProbeResult[], entryPoint: EntryPoint, auth: Auth): boolean {
  const probes = results.filter((result) => result.endpoint === entryPoint && result.auth === auth);
  return probes.length > 0 && probes.every((result) => result.ok);
}
