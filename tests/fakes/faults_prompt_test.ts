/**
 * The fake's refusals of a prompt (context length, content policy, prefill) in each
 * provider's words, and a prefill honoured as a model continuing it would.
 */
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer";
import type { WireProtocol } from "./behaviour.ts";
import { FrameReader, frameText, post, PROTOCOLS, requestBody, withFake } from "./fake_client.ts";
import { contentPolicy, contextExceeded } from "./faults.ts";
import { startFakeUpstream } from "./upstream.ts";

const start = () => startFakeUpstream({ name: "f" });

const openai = (message: string, param: string | null, code: string | null) => ({
  error: { message, type: "invalid_request_error", param, code },
});
const anthropic = (message: string) => ({
  type: "error",
  error: { type: "invalid_request_error", message },
});

/** An error body as these tests read it. */
interface ErrorBody {
  error: { message: string; code?: string; param?: string; innererror?: { code: string } };
}

/** The 400 body, Anthropic's `request_id` dropped. */
async function refusal(response: Response): Promise<ErrorBody> {
  assert.equal(response.status, 400);
  const { request_id: _, ...body } = await response.json();
  return body;
}

const CONTEXT: Record<WireProtocol, unknown> = {
  chat: openai(
    "This model's maximum context length is 128000 tokens. However, your messages resulted in " +
      "130412 tokens. Please reduce the length of the messages.",
    "messages",
    "context_length_exceeded",
  ),
  responses: openai(
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "input",
    "context_length_exceeded",
  ),
  messages: anthropic("prompt is too long: 210384 tokens > 200000 maximum"),
};

const POLICY: Record<WireProtocol, unknown> = {
  chat: openai(
    "Your request was rejected as a result of our safety system. Your prompt may contain text " +
      "that is not allowed by our safety system.",
    null,
    "content_policy_violation",
  ),
  responses: undefined,
  messages: anthropic(
    "Your request was flagged as potentially violating our Usage Policy " +
      "(https://www.anthropic.com/legal/aup). Please rephrase your request and try again.",
  ),
};
POLICY.responses = POLICY.chat;

const PREFILL_REFUSED: Record<WireProtocol, unknown> = {
  chat: openai(
    "Assistant message prefill is not supported for this model. The last message must be a " +
      "user or tool message.",
    "messages",
    null,
  ),
  responses: openai(
    "Assistant message prefill is not supported for this model. The last message must be a " +
      "user or tool message.",
    "input",
    null,
  ),
  messages: anthropic(
    "This model does not support assistant message prefill. The conversation must end with a " +
      "user message.",
  ),
};

const ANSWER = "The quick brown fox jumps over the lazy dog.";

/** A whole answer of any protocol, as far as these tests read it. */
interface Whole {
  choices?: { message: { content: string } }[];
  output?: { content: { text: string }[] }[];
  content?: { text: string }[];
  usage: Partial<Record<"prompt_tokens" | "completion_tokens" | "input_tokens", number>> & {
    output_tokens?: number;
  };
}

/** The text and usage of a whole answer of any protocol. */
async function wholeOf(response: Response) {
  const body: Whole = await response.json();
  const text = body.choices?.[0]?.message.content ?? body.output?.[0]?.content[0]?.text ??
    body.content?.[0]?.text;
  const { usage } = body;
  return {
    text,
    input: usage.prompt_tokens ?? usage.input_tokens,
    output: usage.completion_tokens ?? usage.output_tokens,
  };
}

for (const protocol of PROTOCOLS) {
  const ask = (fake: Parameters<typeof post>[0], text: string, prefill?: string) =>
    post(fake, protocol, requestBody(protocol, text, { prefill }));

  Deno.test(`fault ${protocol}: context length exceeded, always or by the prompt's size`, () =>
    withFake(start, async (fake) => {
      fake.setBehaviour(contextExceeded());
      assert.deepEqual(await refusal(await ask(fake, "hi")), CONTEXT[protocol]);

      fake.setBehaviour({ contextWindow: 10 });
      assert.equal((await ask(fake, "short")).status, 200);
      const long = "word ".repeat(40);
      const tokens = countTokens(long);
      const body = await refusal(await ask(fake, long));
      const message = body.error.message;
      if (protocol === "chat") {
        assert.equal(
          message,
          `This model's maximum context length is 10 tokens. However, your messages resulted in ` +
            `${tokens} tokens. Please reduce the length of the messages.`,
        );
      } else if (protocol === "messages") {
        assert.equal(message, `prompt is too long: ${tokens} tokens > 10 maximum`);
      } else assert.equal(body.error.code, "context_length_exceeded");
    }));

  Deno.test(`fault ${protocol}: content policy refusal`, () =>
    withFake(start, async (fake) => {
      fake.setBehaviour(contentPolicy());
      assert.deepEqual(await refusal(await ask(fake, "hi")), POLICY[protocol]);
      if (protocol === "messages") return;
      fake.setBehaviour(contentPolicy({ azure: true }));
      const azure = await refusal(await ask(fake, "hi"));
      assert.equal(azure.error.code, "content_filter");
      assert.equal(azure.error.param, "prompt");
      assert.equal(azure.error.innererror?.code, "ResponsibleAIPolicyViolation");
    }));

  Deno.test(`fault ${protocol}: a prefill refused; a request ending with the user served`, () =>
    withFake(start, async (fake) => {
      fake.setBehaviour({ refusePrefill: true });
      assert.deepEqual(await refusal(await ask(fake, "hi", "The")), PREFILL_REFUSED[protocol]);
      assert.equal((await ask(fake, "hi")).status, 200);
    }));

  Deno.test(`fault ${protocol}: a prefill honoured: only the continuation, and its usage`, () =>
    withFake(start, async (fake) => {
      fake.setBehaviour({ answer: ANSWER });
      const full = await wholeOf(await ask(fake, "Tell me"));
      assert.deepEqual(full, {
        text: ANSWER,
        input: countTokens("Tell me"),
        output: countTokens(ANSWER),
      });

      const prefill = "The quick brown";
      const rest = " fox jumps over the lazy dog.";
      const continued = await wholeOf(await ask(fake, "Tell me", prefill));
      assert.deepEqual(continued, {
        text: rest,
        input: countTokens(`Tell me\n${prefill}`),
        output: countTokens(rest),
      });

      const streamed = await post(
        fake,
        protocol,
        requestBody(protocol, "Tell me", { prefill, stream: true }),
      );
      const { frames, error } = await new FrameReader(streamed.body!).rest();
      assert.equal(error, undefined);
      assert.equal(frameText(frames), rest);

      // A prefill that is not the answer's start is ignored: the whole answer comes.
      const other = await wholeOf(await ask(fake, "Tell me", "Once upon"));
      assert.equal(other.text, ANSWER);

      const spaced = await ask(fake, "Tell me", "The quick ");
      if (protocol !== "messages") {
        assert.equal(
          (await wholeOf(spaced)).text,
          " brown fox jumps over the lazy dog.",
        );
        return;
      }
      // Anthropic refuses a prefill that ends in whitespace.
      assert.deepEqual(
        await refusal(spaced),
        anthropic("messages: final assistant content cannot end with trailing whitespace"),
      );
    }));
}

Deno.test("fault messages: a text prefill with thinking enabled is refused, as Anthropic does", () =>
  withFake(start, async (fake) => {
    fake.setBehaviour({ answer: ANSWER });
    const body = requestBody("messages", "Tell me", { prefill: "The quick" });
    const thinking = { ...body, thinking: { type: "enabled", budget_tokens: 1024 } };
    const refused = await refusal(await post(fake, "messages", thinking));
    assert.match(refused.error.message, /^messages\.1\.content\.0\.type: Expected `thinking`/);
    assert.equal((await post(fake, "messages", body)).status, 200);
  }));
