/**
 * A plain client for the fakes' own tests: request bodies of the three protocols, a POST
 * with each provider's key header, and an SSE body read raw, frame by frame, so a test
 * sees the bytes a client would, up to a cut or a stall.
 */
import type { WireProtocol } from "./behaviour.ts";
import type { FakeUpstream } from "./upstream.ts";

/** The three protocols, for tests that run once per protocol. */
export const PROTOCOLS: readonly WireProtocol[] = ["chat", "responses", "messages"];

const PATHS: Record<WireProtocol, string> = {
  chat: "/chat/completions",
  responses: "/responses",
  messages: "/messages",
};

/** A request of `protocol` for `text`, streamed or not, with a trailing assistant turn. */
export function requestBody(
  protocol: WireProtocol,
  text: string,
  options: { stream?: boolean; prefill?: string } = {},
): Record<string, unknown> {
  const turns: Record<string, unknown>[] = [{ role: "user", content: text }];
  if (options.prefill !== undefined) turns.push({ role: "assistant", content: options.prefill });
  const stream = options.stream ? { stream: true } : {};
  if (protocol === "responses") return { model: "m1", input: turns, ...stream };
  if (protocol === "messages") return { model: "m1", max_tokens: 100, messages: turns, ...stream };
  return { model: "m1", messages: turns, ...stream };
}

/** POSTs `body` to the protocol's path, the key as the provider wants it. */
export function post(
  fake: FakeUpstream,
  protocol: WireProtocol,
  body: Record<string, unknown>,
  key = "sk-test",
): Promise<Response> {
  const auth: Record<string, string> = protocol === "messages"
    ? { "x-api-key": key, "anthropic-version": "2023-06-01" }
    : { authorization: `Bearer ${key}` };
  return fetch(`${fake.url}${PATHS[protocol]}`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** An SSE body read raw: frames are the texts between blank lines, each with its `\n\n`. */
export class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  readonly frames: string[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Reads until `count` frames came in all; returns them all. Throws if the body ends first. */
  async take(count: number): Promise<string[]> {
    while (this.frames.length < count) {
      const { done, value } = await this.#reader.read();
      if (done) throw new Error(`The body ended after ${this.frames.length} frames.`);
      this.#add(value);
    }
    return [...this.frames];
  }

  /** Reads to the end: every frame, what came after the last blank line, the read error. */
  async rest(): Promise<{ frames: string[]; tail: string; error?: unknown }> {
    try {
      for (let read = await this.#reader.read(); !read.done; read = await this.#reader.read()) {
        this.#add(read.value);
      }
      return { frames: [...this.frames], tail: this.#buffer };
    } catch (error) {
      return { frames: [...this.frames], tail: this.#buffer, error };
    }
  }

  #add(text: string) {
    this.#buffer += text;
    for (let end = this.#buffer.indexOf("\n\n"); end >= 0; end = this.#buffer.indexOf("\n\n")) {
      this.frames.push(this.#buffer.slice(0, end + 2));
      this.#buffer = this.#buffer.slice(end + 2);
    }
  }
}

/** A frame's data, parsed; the raw text when it is not JSON. */
export function frameData(frame: string): unknown {
  const data = frame.split("\n").find((line) => line.startsWith("data: "))?.slice(6) ?? "";
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/**
 * What each frame is, in brief: its `event:` name; for chat (no event names) `role`,
 * `content`, `reasoning`, `tool`, `finish`, `usage`, `error` or `[DONE]`; `!malformed`
 * appended when its data is not JSON.
 */
export function frameNames(frames: string[]): string[] {
  return frames.map((frame) => {
    const event = /^event: (.+)$/m.exec(frame)?.[1];
    const data = frameData(frame);
    if (typeof data === "string" && data !== "[DONE]") return `${event ?? ""}!malformed`;
    if (event) return event;
    if (data === "[DONE]") return data;
    const chunk = data as {
      error?: unknown;
      choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
    };
    if (chunk.error) return "error";
    const choice = chunk.choices[0];
    if (!choice) return "usage";
    if (choice.finish_reason) return "finish";
    const delta = choice.delta;
    if (delta.tool_calls) return "tool";
    if (typeof delta.reasoning_content === "string") return "reasoning";
    return typeof delta.role === "string" ? "role" : "content";
  });
}

/** The text the content frames carry, joined (any protocol). */
export function frameText(frames: string[]): string {
  return frames.map((frame) => {
    const data = frameData(frame) as Record<string, unknown> | string;
    if (typeof data !== "object" || data === null) return "";
    const choices = data.choices as { delta?: { content?: string } }[] | undefined;
    if (choices) return choices[0]?.delta?.content ?? "";
    if (data.type === "response.output_text.delta") return String(data.delta);
    const delta = data.delta as { type?: string; text?: string } | undefined;
    return delta?.type === "text_delta" ? delta.text ?? "" : "";
  }).join("");
}

/** Starts a fake for one test and closes it after. */
export async function withFake(
  start: () => Promise<FakeUpstream>,
  test: (fake: FakeUpstream) => Promise<void>,
): Promise<void> {
  const fake = await start();
  try {
    await test(fake);
  } finally {
    await fake.close();
  }
}
