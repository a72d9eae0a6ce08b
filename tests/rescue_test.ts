/**
 * Stream rescues (design.md "Failover"), beyond the matrix: what a rescue sends (the
 * conversation plus the text sent so far as a trailing assistant turn), which channels
 * may continue (never a responses channel; the model's other channels, then the same
 * one), what stops a rescue (`rescue_streams`, `prefill`, `max_attempts`), a rescuer
 * that fails or is cut in turn, the official SDKs' view of a rescued or broken stream,
 * and the request's attempts as `requests --id --json` and the admin API show them.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { AttemptJson, RequestDetailJson } from "../src/admin/requests.ts";
import { microsToUsd } from "../src/billing/money.ts";
import { adminJson, cliJson } from "./admin_support.ts";
import { trailingAssistantText } from "./fakes/prefill.ts";
import { unavailable } from "./fakes/faults.ts";
import {
  ANSWER,
  type Books,
  type CaseConfig,
  drive,
  type Protocol,
  readStream,
  requestOf,
  type Rig,
  type Seen,
  startRig,
} from "./failover_support.ts";

/** Runs `test` with a rig whose channels speak `channel`, closing it however the test ends. */
async function withRig(channel: Protocol, test: (rig: Rig) => Promise<void>): Promise<void> {
  const rig = await startRig(channel);
  try {
    await test(rig);
  } finally {
    await rig.close();
  }
}

/** A streamed request of `entry`'s protocol, with its books. */
async function streamed(rig: Rig, entry: Protocol): Promise<{ seen: Seen; books: Books }> {
  const before = await rig.balance();
  const { response, value } = await rig.ask(
    entry,
    requestOf(entry, true),
    (response) => readStream(entry, response),
  );
  const books = await rig.books(response.headers.get("x-request-id")!, before);
  return { seen: value, books };
}

/** The attempts as `channel outcome` (with the status of a failure that had one). */
function tries(books: Books): string[] {
  return books.attempts.map((attempt) =>
    `${attempt.channel} ${attempt.status ?? attempt.outcome}`.replace(/ failed$/, " fail")
  );
}

/** A complete answer, ended properly, with one usage and no error. */
function assertWhole(seen: Seen, text = ANSWER): void {
  assert.equal(seen.status, 200);
  assert.equal(seen.text, text, JSON.stringify(seen));
  assert.ok(seen.clean, "ended properly");
  assert.deepEqual(seen.errors, []);
  assert.equal(seen.usages, 1);
  assert.equal(seen.preambles, 1);
}

/** A stream that went out in part, then ended with the error event, never cleanly. */
function assertBroken(seen: Seen): void {
  assert.equal(seen.status, 200);
  assert.equal(seen.clean, false, JSON.stringify(seen));
  assert.equal(seen.errors.length, 1);
  assert.ok(seen.text.length > 0 && ANSWER.startsWith(seen.text), seen.text);
}

for (const channel of ["chat", "messages"] as const) {
  Deno.test(`rescue (${channel} channels): the rescuer gets the conversation and the text sent so far, trimmed, as the assistant's turn`, () =>
    withRig(channel, async (rig) => {
      await rig.begin({ a: { cut: { after: 2 }, ...rig.afterCommit() } });
      const { seen, books } = await streamed(rig, "messages");
      assertWhole(seen);
      assert.deepEqual(tries(books), ["a cut", "b ok"]);
      const sent = rig.fakes.b.requests.at(-1)!.body as Record<string, unknown>;
      // "The " and "quick " went out: the prefill drops the trailing space, which the
      // continuation (" brown ...") brings back without the client seeing it twice.
      assert.equal(trailingAssistantText(sent), "The quick");
      assert.equal(sent.stream, true);
      const turns = sent.messages as { role: string }[];
      assert.deepEqual(turns.map((turn) => turn.role), ["user", "assistant"]);
      // What the client asked for, less what it already has.
      const cut = books.attempts[0]!;
      const limit = channel === "messages" ? sent.max_tokens : sent.max_completion_tokens ??
        sent.max_tokens;
      assert.equal(limit, 256 - cut.usage!.output_tokens);
    }));
}

Deno.test("rescue: a responses channel never continues a stream; a cut on one is continued elsewhere", () =>
  withRig("chat", async (rig) => {
    // `b` speaks responses: passed over though its model takes a prefill; `a` itself continues.
    await rig.begin({ a: [{ cut: { after: 2 }, ...rig.afterCommit() }, {}] }, {
      protocols: { b: "responses" },
    });
    let { seen, books } = await streamed(rig, "chat");
    assertWhole(seen);
    assert.deepEqual(tries(books), ["a cut", "a ok"]);
    assert.equal(rig.sent().b, 0);

    // `a` speaks responses and is cut: `b` (chat) continues it.
    await rig.begin({ a: { cut: { after: 2 }, ...rig.afterCommit("responses") } }, {
      protocols: { a: "responses" },
    });
    ({ seen, books } = await streamed(rig, "responses"));
    assertWhole(seen);
    assert.deepEqual(tries(books), ["a cut", "b ok"]);
  }));

const OFF: [string, CaseConfig][] = [
  ["rescue_streams = false", { failover: { rescue_streams: false } }],
  ["no model takes a prefill", { prefill: false }],
];

for (const [name, config] of OFF) {
  Deno.test(`rescue: with ${name} a cut stream ends with the error event and nothing is sent again`, () =>
    withRig("messages", async (rig) => {
      await rig.begin({ a: { cut: { after: 2 }, ...rig.afterCommit() } }, config);
      const { seen, books } = await streamed(rig, "chat");
      assertBroken(seen);
      assert.deepEqual(tries(books), ["a cut"]);
      assert.deepEqual(rig.sent(), { a: 1, b: 0, c: 0 });
      assert.equal(books.row.status, "failed");
      assert.equal(books.row.estimated, 1, "the cut call is billed for what it delivered");
      assert.ok(books.row.cost_micros > 0);
    }));
}

Deno.test("rescue: max_attempts counts the rescue with the retries before it", () =>
  withRig("chat", async (rig) => {
    await rig.begin(
      { a: ["500", { cut: { after: 2 }, ...rig.afterCommit() }] },
      { failover: { max_attempts: 2 } },
    );
    const { seen, books } = await streamed(rig, "chat");
    assertBroken(seen);
    assert.deepEqual(tries(books), ["a 500", "a cut"]);
    assert.equal(rig.sent().b, 0);
  }));

Deno.test("rescue: a rescuer that fails before its content is retried, then the next candidate continues", () =>
  withRig("messages", async (rig) => {
    await rig.begin({
      a: [{ cut: { after: 2 }, ...rig.afterCommit() }, {}],
      b: unavailable(),
    });
    const { seen, books } = await streamed(rig, "responses");
    assertWhole(seen);
    assert.deepEqual(tries(books), ["a cut", "b 503", "b 503", "a ok"]);
    assert.equal(books.attempts[1]!.costMicros, 0);
    assert.equal(books.attempts[2]!.costMicros, 0);
  }));

Deno.test("rescue: a rescuer cut in turn is rescued again; the client still sees one answer", () =>
  withRig("chat", async (rig) => {
    await rig.begin({
      a: [{ cut: { after: 2 }, ...rig.afterCommit() }, {}],
      b: { cut: { after: 2 } },
    });
    const { seen, books } = await streamed(rig, "messages");
    assertWhole(seen);
    assert.deepEqual(tries(books), ["a cut", "b cut", "a ok"]);
    const last = rig.fakes.a.requests.at(-1)!.body as Record<string, unknown>;
    assert.ok(
      ANSWER.startsWith(trailingAssistantText(last)!),
      "the last rescuer was given the text both cut calls sent",
    );
    assert.ok(trailingAssistantText(last)!.length > "The quick".length);
  }));

Deno.test("rescue: the official SDKs see a rescued stream whole, and raise on a broken one", () =>
  withRig("chat", async (rig) => {
    // The answer's head reached the client: the fake may go on to its fault.
    const committing: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      rig.committed();
      return response;
    };
    const openai = new OpenAI({
      apiKey: rig.secret,
      baseURL: rig.gateway.baseUrl,
      maxRetries: 0,
      fetch: committing,
    });
    const anthropic = new Anthropic({
      apiKey: null,
      authToken: rig.secret,
      baseURL: rig.gateway.url,
      maxRetries: 0,
      fetch: committing,
    });
    const cutOnce = () => rig.begin({ a: { cut: { after: 2 }, ...rig.afterCommit() } });
    const chatText = async () => {
      const stream = await openai.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "hi there" }],
        stream: true,
      });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      return text;
    };
    const responsesText = async () => {
      const response = await openai.responses.stream({
        model: "m",
        input: "hi there",
        store: false,
      })
        .finalResponse();
      return response.output_text;
    };
    const messagesText = async () => {
      const message = await anthropic.messages.stream({
        model: "m",
        max_tokens: 256,
        messages: [{ role: "user", content: "hi there" }],
      }).finalMessage();
      return message.content.map((block) => block.type === "text" ? block.text : "").join("");
    };
    for (const read of [chatText, responsesText, messagesText]) {
      await cutOnce();
      assert.equal(await drive(rig.clock, read()), ANSWER, read.name);
      assert.deepEqual(rig.sent(), { a: 1, b: 1, c: 0 });
    }
    for (const read of [chatText, responsesText, messagesText]) {
      await rig.begin({ a: { cut: { after: 2 }, ...rig.afterCommit() } }, {
        failover: { rescue_streams: false },
      });
      await assert.rejects(
        drive(rig.clock, read()),
        (error: unknown) =>
          (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) &&
          /broke off before it finished/.test(error.message),
        `${read.name} raises the stream's error event`,
      );
    }
    // Nothing went out: an HTTP status the SDKs raise as theirs.
    await rig.begin({ a: unavailable(), b: unavailable(), c: unavailable() });
    await assert.rejects(
      drive(rig.clock, chatText()),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 502,
    );
    await assert.rejects(
      drive(rig.clock, messagesText()),
      (error: unknown) => error instanceof Anthropic.APIError && error.status === 502,
    );
  }));

Deno.test("rescue: requests --id --json and the admin API show the attempts of a rescued request", () =>
  withRig("messages", async (rig) => {
    await rig.begin({ a: { cut: { after: 2 }, ...rig.afterCommit() } });
    const before = await rig.balance();
    const { response } = await rig.ask(
      "chat",
      requestOf("chat", true),
      (response) => readStream("chat", response),
    );
    const id = response.headers.get("x-request-id")!;
    const books = await rig.books(id, before);
    const admin = rig.gateway.server.firstKey!;
    const api = await adminJson<RequestDetailJson>(rig.gateway, `/admin/api/requests/${id}`, {
      key: admin,
    });
    const cli = await cliJson<RequestDetailJson | RequestDetailJson[]>(
      rig.gateway,
      "requests",
      "--id",
      id,
    );
    assert.deepEqual(Array.isArray(cli) ? cli[0] : cli, api);
    assert.ok(Array.isArray(api.attempts));
    assert.deepEqual(
      api.attempts.map((attempt: AttemptJson) => [attempt.channel, attempt.outcome]),
      [["a", "cut"], ["b", "ok"]],
    );
    assert.deepEqual(
      api.attempts.map((attempt) => attempt.cost_usd),
      books.attempts.map((attempt) => microsToUsd(attempt.costMicros ?? 0)),
    );
    assert.equal(api.cost_usd, microsToUsd(books.row.cost_micros));
    assert.equal(api.attempts[1]!.upstream_model, "m");
    assert.ok(api.attempts.every((attempt) => attempt.ttfb_ms !== null));
  }));

const NOT_CONTINUED = [
  {
    what: "a tool call's arguments",
    reply: {
      text: "",
      toolCalls: [{ id: "call_1", name: "weather", arguments: '{"city":"Paris","days":3}' }],
    },
  },
  {
    what: "a reasoning block",
    reply: { text: "Sunny.", reasoning: { text: "Let me think it over." } },
  },
];

for (const { what, reply } of NOT_CONTINUED) {
  Deno.test(`rescue: a stream cut inside ${what} is not continued: the error event`, () =>
    withRig("chat", async (rig) => {
      await rig.begin({ a: { answer: undefined, reply, cut: { after: 2 }, ...rig.afterCommit() } });
      const { seen, books } = await streamed(rig, "messages");
      assert.equal(seen.status, 200);
      assert.equal(seen.clean, false, JSON.stringify(seen));
      assert.equal(seen.errors.length, 1);
      assert.deepEqual(tries(books), ["a cut"]);
      assert.deepEqual(rig.sent(), { a: 1, b: 0, c: 0 });
    }));
}

// A leg no rescue may continue is still checked: a broken event is never relayed, nor
// dropped in silence before a clean end.
for (const entry of ["chat", "messages"] as const) {
  Deno.test({
    name:
      `rescue: with rescue_streams = false a malformed event after the commit ends the ${entry} stream with the error event`,
    fn: () =>
      withRig("chat", async (rig) => {
        await rig.begin(
          { a: { malformed: { after: 2, then: "continue" }, ...rig.afterCommit() } },
          { failover: { rescue_streams: false } },
        );
        const { seen, books } = await streamed(rig, entry);
        assertBroken(seen);
        assert.equal(seen.malformed, 0, "the broken event is not relayed");
        assert.deepEqual(tries(books), ["a cut"]);
        assert.equal(books.row.status, "failed");
      }),
  });
}
