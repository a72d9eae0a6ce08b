/**
 * The failover matrix (issue 40): each upstream fault through every entry protocol and
 * every channel protocol, streamed and whole. The client gets a complete answer or an
 * honest error (an HTTP status when nothing went out, else the entry protocol's error
 * event), never a truncated success; the ledger row, its attempts and the account add up
 * to the micro-USD. One gateway per channel protocol (tests/failover_support.ts) serves
 * every case, its time on a ManualClock: no case waits for a deadline or a pause.
 */
import assert from "node:assert/strict";
import type { Plan } from "./fakes/behaviour.ts";
import {
  contentPolicy,
  contextExceeded,
  emptyAnswer,
  overloaded,
  rateLimited,
  serverError,
  unavailable,
} from "./fakes/faults.ts";
import {
  ANSWER,
  type Books,
  type CaseConfig,
  type ChannelName,
  FAILOVER,
  type Protocol,
  PROTOCOLS,
  readStream,
  readWhole,
  requestOf,
  type Rig,
  type Seen,
  startRig,
} from "./failover_support.ts";

/** One cell of the matrix. */
interface Cell {
  entry: Protocol;
  channel: Protocol;
  stream: boolean;
  rig: Rig;
}

/**
 * An attempt as a case expects it: `"a ok"`, `"a cut"`, `"a fail"` (no HTTP status: a
 * reset, a timeout, a broken body), or `"a 503"` (failed with that status).
 */
type Try = `${ChannelName} ${string}`;

/** What every expectation may also say. */
interface Also {
  /**
   * The channel keys of `a`'s requests as a pattern: a letter a key, so `"xx"` is one key
   * twice (a retry, a Retry-After waited out) and `"xy"` two keys (a rate limit rotated).
   */
  keys?: string;
  /** The first attempt's recorded reason. */
  reason?: RegExp;
  /** Bounds of the time the request took on the gateway's clock. */
  minElapsedMs?: number;
  maxElapsedMs?: number;
}

/** What the client gets, and what the ledger says of it. */
type Expected =
  /** A complete answer, `text` (default ANSWER), after `attempts`. */
  | { answer: Try[]; text?: string } & Also
  /** An HTTP error status before anything went out. */
  | { refused: number; attempts: Try[]; code: string; message?: RegExp } & Also
  /** A committed stream that ends with the entry protocol's error event (`code`). */
  | { broken: Try[]; code: string } & Also;

/** One fault: what each fake does, the case's config, and what should come of it. */
interface Fault {
  name: string;
  plans(cell: Cell): Partial<Record<ChannelName, Plan>>;
  config?: CaseConfig;
  expect(cell: Cell): Expected;
}

/** A responses channel never takes a prefill, so its streams are never rescued. */
const rescuable = (cell: Cell) => cell.channel !== "responses";

/** Timeouts of the faulty channel `a` (its neighbours keep minutes). */
const SHORT = { a: "{ first_byte = 2_000, first_content = 2_000, idle = 4_000 }" };
// A fault after the head: the head's deadline is long, so that a head the host was slow to
// deliver (the clock steps on while the process waits) is never taken for the fault.
const SHORT_AFTER_HEAD = { a: "{ first_byte = 600_000, first_content = 2_000, idle = 4_000 }" };
// A fault after content: only the idle deadline is short.
const SHORT_AFTER_CONTENT = {
  a: "{ first_byte = 600_000, first_content = 600_000, idle = 4_000 }",
};

/** A stream fault after the commit: rescued on `b` where it can be, else the error event. */
function afterCommit(code: string): (cell: Cell) => Expected {
  return (cell) => {
    if (!cell.stream) return { answer: ["a fail", "a fail", "b ok"] };
    return rescuable(cell) ? { answer: ["a cut", "b ok"] } : { broken: ["a cut"], code };
  };
}

const FAULTS: Fault[] = [
  {
    name: "429 with Retry-After 1 s",
    plans: () => ({ a: [rateLimited({ retryAfter: 1 }), {}] }),
    expect: () => ({ answer: ["a 429", "a ok"], keys: "xx", minElapsedMs: 1_000 }),
  },
  {
    name: "429 with Retry-After 1 s always",
    // Waited out once per key: then the other key, then the next channel.
    plans: () => ({ a: rateLimited({ retryAfter: 1 }) }),
    expect: () => ({
      answer: ["a 429", "a 429", "a 429", "a 429", "b ok"],
      keys: "xxyy",
      minElapsedMs: 2_000,
    }),
  },
  {
    name: "429 with Retry-After 60 s",
    plans: () => ({ a: rateLimited({ retryAfter: 60 }) }),
    expect: () => ({ answer: ["a 429", "a 429", "b ok"], keys: "xy", maxElapsedMs: 59_000 }),
  },
  {
    name: "429 without Retry-After",
    plans: () => ({ a: rateLimited() }),
    expect: () => ({ answer: ["a 429", "a 429", "b ok"], keys: "xy" }),
  },
  {
    name: "500 once",
    plans: () => ({ a: [serverError(), {}] }),
    expect: () => ({ answer: ["a 500", "a ok"], keys: "xx", minElapsedMs: 250 }),
  },
  {
    name: "503 with Retry-After 1 s once",
    plans: () => ({ a: [unavailable({ retryAfter: 1 }), {}] }),
    expect: () => ({ answer: ["a 503", "a ok"], keys: "xx", minElapsedMs: 1_000 }),
  },
  {
    name: "503 always",
    plans: () => ({ a: unavailable() }),
    // A channel that fails is left, its other key too.
    expect: () => ({ answer: ["a 503", "a 503", "b ok"], keys: "xx", minElapsedMs: 250 }),
  },
  {
    name: "503 on every channel",
    plans: () => ({ a: unavailable(), b: unavailable(), c: unavailable() }),
    expect: () => ({
      refused: 502,
      attempts: ["a 503", "a 503", "b 503", "b 503", "c 503", "c 503"],
      code: "bad_response_status_code",
    }),
  },
  {
    name: "529 overloaded",
    plans: () => ({ a: overloaded() }),
    expect: () => ({ answer: ["a 529", "a 529", "b ok"], keys: "xx", minElapsedMs: 250 }),
  },
  {
    name: "529 on every channel",
    plans: () => ({ a: overloaded(), b: overloaded(), c: overloaded() }),
    // The messages protocol has a status of its own for it.
    expect: (cell) => ({
      refused: cell.entry === "messages" ? 529 : 503,
      attempts: ["a 529", "a 529", "b 529", "b 529", "c 529", "c 529"],
      code: cell.entry === "messages" ? "overloaded_error" : "channel:no_available_key",
    }),
  },
  {
    name: "reset",
    plans: () => ({ a: "reset" }),
    expect: () => ({ answer: ["a fail", "a fail", "b ok"], keys: "xx", minElapsedMs: 250 }),
  },
  {
    name: "no answer",
    plans: () => ({ a: "hang" }),
    config: { timeouts: SHORT },
    expect: () => ({
      answer: ["a fail", "a fail", "b ok"],
      reason: /no response headers within 2000 ms/,
      minElapsedMs: 4_250,
    }),
  },
  {
    name: "slow first content",
    plans: () => ({ a: { stall: { after: "preamble" } } }),
    config: { timeouts: SHORT_AFTER_HEAD },
    // Streams: first_content (2 s); whole answers: idle on the body (4 s).
    expect: (cell) => ({
      answer: ["a fail", "a fail", "b ok"],
      reason: cell.stream ? /no content within 2000 ms/ : /no response body within 4000 ms/,
      minElapsedMs: 4_250,
    }),
  },
  {
    name: "preamble then error event",
    plans: () => ({ a: { streamError: { after: "preamble" } } }),
    expect: (cell) => {
      // The status each protocol's error event stands for (messages: `overloaded_error`).
      const status = cell.channel === "messages" ? 529 : 500;
      return { answer: cell.stream ? [`a ${status}`, `a ${status}`, "b ok"] : ["a ok"] };
    },
  },
  {
    name: "empty answer",
    plans: () => ({ a: { ...emptyAnswer(), answer: "" } }),
    expect: () => ({ answer: ["a ok"], text: "" }),
  },
  {
    name: "empty stream",
    plans: () => ({ a: { transcript: { sse: "" } } }),
    expect: (cell) => ({ answer: cell.stream ? ["a fail", "a fail", "b ok"] : ["a ok"] }),
  },
  {
    name: "cut before content",
    plans: () => ({ a: { cut: { after: "preamble" } } }),
    expect: () => ({ answer: ["a fail", "a fail", "b ok"] }),
  },
  {
    name: "cut after 2 deltas",
    plans: (cell) => ({
      a: { cut: { after: 2 }, ...(cell.stream ? cell.rig.afterCommit() : {}) },
    }),
    expect: afterCommit("upstream_error"),
  },
  {
    name: "stall after 2 deltas",
    plans: () => ({ a: { stall: { after: 2 } } }),
    config: { timeouts: SHORT_AFTER_CONTENT },
    expect: (cell) => ({ ...afterCommit("upstream_timeout")(cell), reason: /4000 ms/ }),
  },
  {
    name: "malformed chunk before content",
    plans: () => ({ a: { malformed: { after: "preamble", then: "continue" } } }),
    expect: () => ({ answer: ["a fail", "a fail", "b ok"] }),
  },
  {
    name: "malformed chunk after 2 deltas",
    plans: (cell) => ({
      a: {
        malformed: { after: 2, then: "continue" },
        ...(cell.stream ? cell.rig.afterCommit() : {}),
      },
    }),
    expect: afterCommit("upstream_error"),
  },
  {
    name: "no terminator",
    plans: (cell) => ({ a: { noTerminator: {}, ...(cell.stream ? cell.rig.afterCommit() : {}) } }),
    expect: (cell) => {
      if (!cell.stream) return { answer: ["a ok"] };
      return rescuable(cell)
        ? { answer: ["a cut", "b ok"] }
        : { broken: ["a cut"], code: "upstream_error" };
    },
  },
  {
    name: "400 context length",
    plans: () => ({ a: contextExceeded() }),
    expect: () => ({ answer: ["a 400", "c ok"] }),
  },
  {
    name: "400 content policy",
    plans: () => ({ a: contentPolicy() }),
    expect: (cell) => ({
      refused: 400,
      attempts: ["a 400"],
      code: "invalid_request",
      message: cell.channel === "messages" ? /Usage Policy/ : /safety system/,
    }),
  },
  {
    name: "404 from the upstream",
    plans: () => ({ a: { error: { status: 404, message: "The model `m` does not exist." } } }),
    expect: () => ({
      refused: 404,
      attempts: ["a 404"],
      code: "not_found",
      message: /does not exist/,
    }),
  },
  {
    name: "prefill refused by the first candidates",
    plans: (cell) => refusingPrefill(cell, ["b"]),
    expect: (cell) => {
      if (!cell.stream) return { answer: ["a ok"] };
      return rescuable(cell)
        ? { answer: ["a cut", "b 400", "a 400", "c ok"] }
        : { broken: ["a cut"], code: "upstream_error" };
    },
  },
  {
    name: "prefill refused by every candidate",
    plans: (cell) => refusingPrefill(cell, ["b", "c"]),
    expect: (cell) => {
      if (!cell.stream) return { answer: ["a ok"] };
      return {
        broken: rescuable(cell) ? ["a cut", "b 400", "a 400", "c 400"] : ["a cut"],
        code: "upstream_error",
      };
    },
  },
];

/**
 * Streams: `a` is cut after its commit and refuses to continue, as do `others`. A whole
 * request has no prefill: a model that refuses one answers it as usual.
 */
function refusingPrefill(cell: Cell, others: ChannelName[]): Partial<Record<ChannelName, Plan>> {
  if (!cell.stream) return { a: { refusePrefill: true } };
  const plans: Partial<Record<ChannelName, Plan>> = {
    a: [{ cut: { after: 2 }, ...cell.rig.afterCommit() }, { refusePrefill: true }],
  };
  for (const name of others) plans[name] = { refusePrefill: true };
  return plans;
}

/** The attempt a `Try` stands for. */
function parseTry(spec: Try) {
  const [channel, what] = spec.split(" ") as [ChannelName, string];
  const status = /^\d+$/.test(what) ? Number(what) : undefined;
  const outcome = what === "ok" || what === "cut" ? what : "failed";
  return { channel, outcome, status, model: channel === "c" ? "big" : "m" };
}

/** Sends one request of `cell` and checks the answer and the books against `expected`. */
async function check(cell: Cell, expected: Expected): Promise<void> {
  const { rig, entry, stream } = cell;
  const before = await rig.balance();
  const read = (response: Response) =>
    stream ? readStream(entry, response) : readWhole(entry, response);
  const { response, value: seen, elapsedMs } = await rig.ask(
    entry,
    requestOf(entry, stream),
    read,
  );
  const id = response.headers.get("x-request-id");
  assert.ok(id, "the answer names its request");
  const books = await rig.books(id, before);
  const tries = "answer" in expected
    ? expected.answer
    : "broken" in expected
    ? expected.broken
    : expected.attempts;
  const wanted = tries.map(parseTry);
  const context = `${JSON.stringify(seen)}\n${books.row.attempt_log}`;
  assert.deepEqual(
    books.attempts.map(({ channel, outcome, status }) => ({ channel, outcome, status })),
    wanted.map(({ channel, outcome, status }) => ({ channel, outcome, status })),
    `the attempts: ${context}`,
  );
  const sent = { a: 0, b: 0, c: 0 };
  for (const attempt of wanted) sent[attempt.channel]++;
  assert.deepEqual(rig.sent(), sent, "each fake got the attempts the ledger shows");
  if (expected.keys !== undefined) {
    const keys = rig.fakes.a.requests.slice(-sent.a).map((request) => request.key);
    assert.equal(keyPattern(keys), expected.keys, `the keys of a: ${keys.join(", ")}`);
  }
  if (expected.reason) assert.match(books.attempts[0]!.reason ?? "", expected.reason);
  if (expected.minElapsedMs !== undefined) {
    assert.ok(elapsedMs >= expected.minElapsedMs, `waited ${elapsedMs} ms on the clock`);
  }
  if (expected.maxElapsedMs !== undefined) {
    assert.ok(elapsedMs <= expected.maxElapsedMs, `took ${elapsedMs} ms on the clock`);
  }
  assert.equal(books.row.model, "m");
  assert.equal(books.row.stream, stream ? 1 : 0);

  if ("refused" in expected) return checkRefused(cell, response, seen, books, expected);
  const committed = wanted.findIndex((attempt) => attempt.outcome !== "failed");
  assert.equal(seen.status, 200, context);
  assert.equal(response.headers.get("x-tollgate-attempts"), String(committed + 1));
  assert.equal(response.headers.get("x-tollgate-model"), wanted[committed]!.model);
  if (stream) assert.equal(seen.preambles, 1, "the client sees exactly one preamble");
  for (const attempt of books.attempts) {
    if (attempt.outcome !== "cut") continue;
    assert.ok(attempt.costMicros! > 0, "a cut call is billed for what it delivered");
    assert.equal(attempt.estimated, true, "its usage report never came: estimated");
    assert.equal(books.row.estimated, 1, "the row says it is estimated");
  }
  if ("broken" in expected) {
    assert.equal(seen.clean, false, `a broken stream never ends cleanly: ${context}`);
    assert.equal(seen.errors.length, 1, `one error event: ${context}`);
    assert.ok(ANSWER.startsWith(seen.text), `what went out is the answer's start: ${context}`);
    assert.equal(errorCode(entry, seen.errors[0]!), expected.code);
    const last = seen.last!;
    const endsInError = entry === "chat"
      ? "error" in JSON.parse(last.data)
      : last.event === "error";
    assert.ok(endsInError, `the stream's last event is the error: ${context}`);
    assert.equal(books.row.status, "failed");
    assert.ok(books.row.cost_micros > 0, "billed for what was delivered");
    return;
  }
  assert.equal(seen.text, expected.text ?? ANSWER, `the whole answer, once: ${context}`);
  assert.ok(seen.clean, `the answer ends properly: ${context}`);
  assert.deepEqual(seen.errors, []);
  assert.equal(seen.malformed, 0, "every event the client got is JSON");
  assert.equal(seen.usages, 1, "one usage");
  const billed = books.attempts.filter((attempt) => attempt.usage);
  assert.deepEqual(seen.usage, {
    input: billed[0]!.usage!.input_tokens,
    output: billed.reduce((sum, attempt) => sum + attempt.usage!.output_tokens, 0),
  }, "the client's usage: the first call's input, all the output");
  const served = wanted.at(-1)!;
  assert.equal(books.row.status, "ok");
  assert.equal(books.row.served_model, served.model);
  assert.equal(books.row.channel, served.channel);
  assert.ok(books.row.cost_micros > 0);
}

/** Keys as a pattern of letters, one per distinct key in order of first use: "xxy". */
function keyPattern(keys: (string | undefined)[]): string {
  const letters = new Map<string | undefined, string>();
  return keys.map((key) => {
    if (!letters.has(key)) letters.set(key, "xyzw"[letters.size] ?? "?");
    return letters.get(key)!;
  }).join("");
}

/** An HTTP error in the entry protocol's shape, and a failed row that cost nothing. */
function checkRefused(
  cell: Cell,
  response: Response,
  seen: Seen,
  books: Books,
  expected: Extract<Expected, { refused: number }>,
): void {
  assert.equal(seen.status, expected.refused, JSON.stringify(seen));
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = seen.errors[0]!;
  assert.equal(errorCode(cell.entry, body), expected.code, JSON.stringify(body));
  if (cell.entry === "messages") assert.equal(body.type, "error");
  if (expected.message) assert.match(errorMessage(cell.entry, body), expected.message);
  assert.equal(books.row.status, "failed");
  assert.equal(books.row.cost_micros, 0);
  assert.equal(books.charged, 0);
}

/** The code of an error body or event of the entry protocol's shape. */
function errorCode(entry: Protocol, body: Record<string, unknown>): unknown {
  if (entry === "responses" && body.type === "error") return body.code;
  return (body.error as { code?: unknown }).code;
}

function errorMessage(entry: Protocol, body: Record<string, unknown>): string {
  if (entry === "responses" && body.type === "error") return body.message as string;
  return (body.error as { message: string }).message;
}

/**
 * A flapping channel: `a` fails (twice, with its retry) and recovers, then fails long
 * enough to cool down; while it cools, requests go to `b` without trying it; after
 * `cooldown_ms` one probe finds it well again. Every request gets its whole answer.
 */
async function checkFlapping(cell: Cell): Promise<void> {
  const { rig } = cell;
  await rig.begin({ a: ["500", "500", "ok", "500", "500", "500", "500", "ok"] });
  const sequence: Try[][] = [
    ["a 500", "a 500", "b ok"],
    ["a ok"],
    ["a 500", "a 500", "b ok"],
    // Its third failure in a row cools `a`: the retry under way still goes to it.
    ["a 500", "a 500", "b ok"],
    ["b ok"],
  ];
  for (const answer of sequence) {
    rig.mark();
    await check(cell, { answer });
  }
  rig.clock.advance(FAILOVER.cooldown_ms);
  rig.mark();
  await check(cell, { answer: ["a ok"] });
}

for (const channel of PROTOCOLS) {
  Deno.test(`failover matrix: channels speaking ${channel}`, async (t) => {
    const rig = await startRig(channel);
    try {
      for (const entry of PROTOCOLS) {
        for (const stream of [false, true]) {
          const cell = { entry, channel, stream, rig };
          const name = `flapping / ${entry} -> ${channel} / ${stream ? "stream" : "whole"}`;
          await t.step(name, () => checkFlapping(cell));
        }
      }
      for (const fault of FAULTS) {
        for (const entry of PROTOCOLS) {
          for (const stream of [false, true]) {
            const cell = { entry, channel, stream, rig };
            const name = `${fault.name} / ${entry} -> ${channel} / ${stream ? "stream" : "whole"}`;
            await t.step({
              name,
              fn: async () => {
                await rig.begin(fault.plans(cell), fault.config);
                await check(cell, fault.expect(cell));
              },
            });
          }
        }
      }
    } finally {
      await rig.close();
    }
  });
}

for (const entry of PROTOCOLS) {
  Deno.test(`failover: a stream whose head went out for keep-alives (${entry}) has no served headers, one preamble, and the error event when nothing serves`, async () => {
    const rig = await startRig("chat");
    try {
      const hang = "{ first_byte = 2_000 }";
      // `a` is silent past keepalive_ms: the head goes out, then `b` answers.
      await rig.begin({ a: "hang" }, { keepaliveMs: 1_000, timeouts: { a: hang } });
      let before = await rig.balance();
      let { response, value: seen } = await rig.ask(
        entry,
        requestOf(entry, true),
        (response) => readStream(entry, response),
      );
      let books = await rig.books(response.headers.get("x-request-id")!, before);
      assert.equal(response.headers.get("x-tollgate-model"), null);
      assert.equal(response.headers.get("x-tollgate-attempts"), null);
      assert.equal(seen.text, ANSWER, JSON.stringify(seen));
      assert.equal(seen.preambles, 1);
      assert.ok(seen.clean);
      assert.deepEqual(books.attempts.map((attempt) => attempt.outcome), [
        "failed",
        "failed",
        "ok",
      ]);

      // Every channel is silent: the head went out, so the error event says so.
      await rig.begin({ a: "hang", b: "hang", c: "hang" }, {
        keepaliveMs: 1_000,
        timeouts: { a: hang, b: hang, c: hang },
      });
      before = await rig.balance();
      ({ response, value: seen } = await rig.ask(
        entry,
        requestOf(entry, true),
        (response) => readStream(entry, response),
      ));
      books = await rig.books(response.headers.get("x-request-id")!, before);
      assert.equal(seen.status, 200);
      assert.equal(seen.clean, false, JSON.stringify(seen));
      assert.equal(seen.text, "");
      assert.equal(seen.errors.length, 1, JSON.stringify(seen));
      assert.equal(errorCode(entry, seen.errors[0]!), "upstream_timeout");
      assert.equal(books.row.status, "failed");
      assert.equal(books.row.attempts, 6);
      assert.equal(books.charged, 0);
    } finally {
      await rig.close();
    }
  });
}
