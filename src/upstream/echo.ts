/**
 * The built-in `echo` channel: no upstream, it answers in the client's own protocol with
 * the text of the last user message, streamed word by word when asked, with honest token
 * counts (o200k_base, loaded by the caller: tokens/token_count.ts). Its counting is bounded like
 * every count: the prompt once (or not at all, when the caller counted it already), the
 * reply once, and a cut to the output cap found in one pass.
 */
import { type Protocol, replyId } from "../protocols/index.ts";
import type { RequestRoute } from "../translate/codec.ts";
import { countPromptTokens, type CountTokens } from "../tokens/token_count.ts";
import type { TextReply } from "../protocols/types.ts";
import { encodeSseBytes, type SseEvent } from "../translate/sse.ts";
import type { StopSignal } from "../clock/stop_signal.ts";

/** What the echo channel needs from its caller. */
export interface EchoOptions {
  /** Aborting errors a streaming body with the signal's reason, as `fetch` would. */
  signal?: StopSignal;
  /** Clock in milliseconds, for the `created` timestamps. */
  now: () => number;
  /** The token counter, for honest usage. */
  count: CountTokens;
  /** The request's input tokens, when the gateway counted them already (the context check). */
  inputTokens?: number;
  /** What the request's path says (the model, for a protocol whose path names it). */
  route?: RequestRoute;
}

/** Options of `echoReply`. */
export interface EchoReplyOptions {
  now: () => number;
  count: CountTokens;
  /** Text put before the echoed message, such as a fake upstream's name tag. */
  prefix?: string;
  /** The request's input tokens, when counted already: then the prompt is not counted again. */
  inputTokens?: number;
  /** What the request's path says (the model, for a protocol whose path names it). */
  route?: RequestRoute;
}

/** Answers a validated entry-point body as an upstream would, in the same protocol. */
export function echoResponse(
  protocol: Protocol,
  body: Record<string, unknown>,
  options: EchoOptions,
): Response {
  const { reply, stream } = echoReply(protocol, body, options);
  if (!stream) {
    return new Response(JSON.stringify(protocol.buildReply(reply, body)), {
      headers: { "content-type": "application/json" },
    });
  }
  const events = protocol.buildReplyEvents(reply, body);
  return new Response(eventStream(events, options.signal), {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

/**
 * The reply the echo channel gives: the last user text (after `prefix`), cut at a word
 * boundary to the request's output token cap, with its token usage; and whether the
 * request asked for it as a stream.
 */
export function echoReply(
  protocol: Protocol,
  body: Record<string, unknown>,
  options: EchoReplyOptions,
): { reply: TextReply; stream: boolean } {
  const request = protocol.parseRequest(body, options.route ?? {});
  const prompt = protocol.promptText(body);
  const text = (options.prefix ?? "") + prompt.lastUserText;
  const words = splitWords(text);
  const { deltas, tokens } = fitTokens(text, words, request.maxOutputTokens, options.count);
  const reply: TextReply = {
    id: replyId(protocol),
    model: request.model,
    created: Math.floor(options.now() / 1000),
    deltas,
    finish: deltas.length < words.length ? "length" : "stop",
    usage: {
      input_tokens: options.inputTokens ?? countPromptTokens(prompt, options.count),
      output_tokens: tokens,
      cached_tokens: 0,
      cache_write_tokens: 0,
    },
  };
  return { reply, stream: request.stream };
}

/** Splits text into stream pieces, each a word with the whitespace before it. */
function splitWords(text: string): string[] {
  const words: string[] = text.match(/\s*\S+/g) ?? [];
  const rest = text.slice(words.join("").length);
  if (rest !== "") words.push(rest);
  return words;
}

/**
 * The longest run of leading words (of `text`) whose text fits in `limit` tokens, all of
 * them without a limit, and its tokens; found with a bounded number of counts (one, mostly),
 * whatever the text.
 */
function fitTokens(
  text: string,
  words: string[],
  limit: number | undefined,
  count: CountTokens,
): { deltas: string[]; tokens: number } {
  if (limit === undefined) return { deltas: words, tokens: count(text) };
  // The prefix of whole pieces within the limit, then the words that end in it.
  const end = count.fit(text, limit);
  let kept = 0;
  for (let at = 0; kept < words.length && at + words[kept]!.length <= end; kept++) {
    at += words[kept]!.length;
  }
  // A word's end may split a piece that reached past it (punctuation takes the line breaks
  // after it): the reported count is of the joined words, so that is the one that must
  // fit. A word or two goes, rarely more; past that the cut shrinks in proportion.
  for (let tries = 0; kept > 0; tries++) {
    const tokens = count(words.slice(0, kept).join(""));
    if (tokens <= limit) return { deltas: words.slice(0, kept), tokens };
    kept = tries < 2 ? kept - 1 : Math.floor((kept * limit) / tokens);
  }
  return { deltas: [], tokens: 0 };
}

/** A byte stream of SSE events, one per pull, that stops when cancelled or aborted. */
function eventStream(events: SseEvent[], signal?: StopSignal): ReadableStream<Uint8Array> {
  let next = 0;
  let onAbort = () => {};
  const detach = () => signal?.removeEventListener("abort", onAbort);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (!signal) return;
      onAbort = () => controller.error(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    },
    pull(controller) {
      const event = events[next++];
      if (event === undefined) {
        detach();
        controller.close();
      } else {
        controller.enqueue(encodeSseBytes(event));
      }
    },
    cancel: detach,
  });
}
