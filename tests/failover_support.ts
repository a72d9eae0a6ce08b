/**
 * A rig for the failover matrix and the rescue tests: one gateway on a ManualClock (its
 * deadlines, pauses and channel health all move on it) in front of three fake upstreams
 * of one channel protocol: `a` (two keys) and `b` serve the priced model `m` (a first), `c` serves
 * its fallback `big`, with a larger window and dearer prices. Each case writes a config
 * of its own and reloads it, which starts channel health afresh, so one gateway serves
 * every case. Also: the client's view of an answer of any entry protocol, streamed or
 * whole, and the books of one request (its ledger row, its attempts, its account).
 */
import assert from "node:assert/strict";
import type { LedgerRow } from "../src/db/schema.ts";
import { type Logger, silentLogger } from "../src/log.ts";
import type { SseEvent } from "../src/translate/sse.ts";
import type { Plan, Step } from "./fakes/behaviour.ts";
import { fault } from "./fakes/faults.ts";
import { ManualClock } from "./fakes/manual_clock.ts";
import { type FakeUpstream, startFakeUpstream } from "./fakes/upstream.ts";
import { pointIndex } from "./fakes/stream_plan.ts";
import { WIRES } from "./fakes/wires.ts";
import { startGateway, type TestGateway } from "./harness.ts";
import { readEvents, replaceConfig } from "./support.ts";

/** The three wire protocols, as entry points and as channels. */
export type Protocol = "chat" | "responses" | "messages";

/** Every protocol, in the order cases are named. */
export const PROTOCOLS: readonly Protocol[] = ["chat", "responses", "messages"];

/** The entry point of each protocol. */
export const ENTRY_PATH: Record<Protocol, string> = {
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  messages: "/v1/messages",
};

/** The rig's channels: `a` and `b` serve `m`, `c` serves its fallback `big`. */
export type ChannelName = "a" | "b" | "c";

/** The whole answer every fake gives (a prefill gets only the rest of it). */
export const ANSWER = "The quick brown fox jumps over the lazy dog, then naps in the warm sun.";

/** USD per 1M tokens, i.e. micro-USD per token, of the rig's two models. */
export const PRICES = {
  m: { input: 1, output: 2 },
  big: { input: 3, output: 6 },
} as const;

/** How far the clock moves per step while a request is under way (see `drive`). */
const STEP_MS = 250;
/** Steps before a request that never ends fails its test (an hour on the clock). */
const MAX_STEPS = 14_400;

/** The rig's `[failover]`: the defaults but for a cool-down no request outlasts by chance. */
export const FAILOVER = {
  retries: 1,
  retry_after_max_ms: 5_000,
  cooldown_ms: 600_000,
  max_attempts: 6,
  rescue_streams: true,
};

/** What one case changes in the rig's config. */
export interface CaseConfig {
  /** A TOML inline table of timeouts for a channel, e.g. `{ first_byte = 2_000 }`. */
  timeouts?: Partial<Record<ChannelName, string>>;
  /** `[failover]` settings in place of the rig's. */
  failover?: Partial<Record<keyof typeof FAILOVER, number | boolean>>;
  /** Whether `m` and `big` take a prefill (default true; responses channels never do). */
  prefill?: boolean;
  /** `[server] keepalive_ms` (default: longer than any case). */
  keepaliveMs?: number;
  /** Per-channel protocols, overriding the rig's one. */
  protocols?: Partial<Record<ChannelName, Protocol>>;
}

/** One request's books: its ledger row, its attempts, and how the account moved. */
export interface Books {
  row: LedgerRow;
  attempts: AttemptLog[];
  /** How much the account's balance went down, in micro-USD. */
  charged: number;
}

/** One attempt as the ledger keeps it (billing/attempt_record.ts). */
export interface AttemptLog {
  channel: string;
  model: string;
  upstreamModel: string;
  outcome: "ok" | "failed" | "cut" | "aborted";
  status?: number;
  reason?: string;
  usage?: { input_tokens: number; output_tokens: number };
  estimated?: boolean;
  costMicros?: number;
}

/** The rig: a gateway, its clock, three fakes, a funded key. */
export interface Rig {
  channel: Protocol;
  clock: ManualClock;
  gateway: TestGateway;
  fakes: Record<ChannelName, FakeUpstream>;
  secret: string;
  account: string;
  /**
   * Starts a case: a fresh config (channel health starts afresh) and each fake's plan,
   * every step of which answers `ANSWER` (honouring a prefill) unless it says otherwise.
   */
  begin(plans: Partial<Record<ChannelName, Plan>>, config?: CaseConfig): Promise<void>;
  /**
   * A stream behaviour's part that holds the fake's stream after its first content until
   * the client has the answer's head (the gateway committed it), so that a fault placed
   * later comes after the commit whatever the network makes of the frames.
   */
  afterCommit(speaks?: Protocol): { gate: Promise<void>; gateAfter: number };
  /** Opens the `afterCommit` gates: the client has the head (`ask` calls it itself). */
  committed(): void;
  /** Counts the fakes' requests from now on (`sent`), keeping the config and its health. */
  mark(): void;
  /** Requests sent to each fake since the case began (or the last `mark`). */
  sent(): Record<ChannelName, number>;
  /** POSTs to the entry point while the clock moves, until `read` has the whole answer. */
  ask<T>(
    entry: Protocol,
    body: Record<string, unknown>,
    read: (response: Response) => Promise<T>,
  ): Promise<{ response: Response; value: T; elapsedMs: number }>;
  /** The books of request `id`, once it settled; checks they add up. */
  books(id: string, balanceBefore: number): Promise<Books>;
  balance(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the rig for channels of `channel`'s protocol. */
export async function startRig(channel: Protocol): Promise<Rig> {
  // The clock of record too: ledger times, key rests and cool-downs move with the deadlines.
  const clock = new ManualClock(Date.now());
  const started: FakeUpstream[] = [];
  let gateway: TestGateway | undefined;
  try {
    for (const name of ["a", "b", "c"]) {
      started.push(await startFakeUpstream({ name, now: () => clock.now() }));
    }
    const [a, b, c] = started as [FakeUpstream, FakeUpstream, FakeUpstream];
    const fakes = { a, b, c };
    let version = 0;
    const toml = (config: CaseConfig) => rigConfig(channel, fakes, config, ++version);
    // Reloads are told in the log: a case whose config was refused must not run on the last one.
    const reloads = { done: 0, refused: [] as string[] };
    const log: Logger = {
      ...silentLogger,
      info: (message) => void (message === "config reloaded" && reloads.done++),
      error: (message, fields) =>
        void reloads.refused.push(`${message}: ${JSON.stringify(fields)}`),
    };
    gateway = await startGateway(toml({}), { clock, now: () => clock.now(), log });
    const { secret, account } = await gateway.createKey({ balanceUsd: "100" });
    const opened = gateway;
    let base = { a: 0, b: 0, c: 0 };
    const mark = () => {
      base = { a: a.requests.length, b: b.requests.length, c: c.requests.length };
    };
    let gates: (() => void)[] = [];
    const openGates = () => {
      for (const open of gates) open();
      gates = [];
    };
    return {
      channel,
      clock,
      gateway: opened,
      fakes,
      secret,
      account,
      async begin(plans, config = {}) {
        const done = reloads.done;
        const refused = reloads.refused.length;
        // Atomically: the file watcher polls beside these reloads.
        await replaceConfig(opened, toml(config));
        await opened.server.reload();
        assert.deepEqual(reloads.refused.slice(refused), [], "the case's config is valid");
        assert.ok(reloads.done > done, "the case's config is in force");
        for (const name of ["a", "b", "c"] as const) {
          fakes[name].setBehaviour(answering(plans[name] ?? {}));
        }
        mark();
      },
      mark,
      committed: openGates,
      afterCommit(speaks = channel) {
        const gate = Promise.withResolvers<void>();
        gates.push(gate.resolve);
        return { gate: gate.promise, gateAfter: framesThroughFirstContent(speaks) };
      },
      sent: () => ({
        a: a.requests.length - base.a,
        b: b.requests.length - base.b,
        c: c.requests.length - base.c,
      }),
      async ask(entry, body, read) {
        const start = clock.now();
        const exchange = (async () => {
          try {
            const response = await opened.post(ENTRY_PATH[entry], secret, body);
            openGates();
            return { response, value: await read(response) };
          } finally {
            openGates();
          }
        })();
        const done = await drive(clock, exchange);
        return { ...done, elapsedMs: clock.now() - start };
      },
      async books(id, balanceBefore) {
        await opened.server.settled();
        const rows = await opened.db.kysely.selectFrom("ledger").selectAll()
          .where("request_id", "=", id).execute();
        assert.equal(rows.length, 1, `one ledger row for request ${id}`);
        const row = rows[0]!;
        const attempts = JSON.parse(row.attempt_log ?? "[]") as AttemptLog[];
        const after = await opened.account(account);
        assert.equal(after.held_micros, 0, "no hold is left behind");
        const charged = balanceBefore - after.balance_micros;
        checkBooks(row, attempts, charged);
        return { row, attempts, charged };
      },
      async balance() {
        return (await opened.account(account)).balance_micros;
      },
      async close() {
        for (const fake of started) await fake.close();
        await opened.close();
      },
    };
  } catch (error) {
    for (const fake of started) await fake.close();
    await gateway?.close();
    throw error;
  }
}

/**
 * Moves `clock` on while `done` is pending, a step per real millisecond at least, so that
 * a healthy exchange (its deadlines are minutes) never runs out of time while a faulty one
 * (seconds) does in a few steps.
 */
export async function drive<T>(clock: ManualClock, done: Promise<T>): Promise<T> {
  let finished = false;
  const result = done.finally(() => finished = true);
  result.catch(() => {}); // awaited below, after the steps
  for (let step = 0; step < MAX_STEPS && !finished; step++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (!finished) clock.advance(STEP_MS);
  }
  if (!finished) throw new Error(`The request did not end within ${MAX_STEPS * STEP_MS} ms`);
  return await result;
}

/** How many frames a fake's stream of ANSWER sends up to and with its first content. */
function framesThroughFirstContent(protocol: Protocol): number {
  const frames = WIRES[protocol].stream({ text: ANSWER }, {
    model: "m",
    id: "id",
    created: 0,
    request: {},
  });
  return pointIndex(frames, 1);
}

/** A plan whose every step answers ANSWER unless it says otherwise. */
function answering(plan: Plan): Plan {
  const step = (one: Step) => ({ answer: ANSWER, ...fault(one) });
  if (Array.isArray(plan)) return plan.map(step);
  if (typeof plan === "object" && "cycle" in plan) return { cycle: plan.cycle.map(step) };
  return step(plan);
}

/** The config of one case: healthy deadlines of minutes, a case's own on its faulty channel. */
function rigConfig(
  protocol: Protocol,
  fakes: Record<ChannelName, FakeUpstream>,
  config: CaseConfig,
  version: number,
): string {
  const prefill = config.prefill ?? true;
  const channel = (name: ChannelName, model: string, priority: number) => {
    const speaks = config.protocols?.[name] ?? protocol;
    return [
      "[[channels]]",
      `name = "${name}"`,
      `protocol = "${speaks}"`,
      `base_url = "${fakes[name].url}"`,
      `models = ["${model}"]`,
      // Two keys on `a`: a rate limit moves to the other, a retry keeps its key.
      `keys = ${JSON.stringify(name === "a" ? ["key-a1", "key-a2"] : [`key-${name}`])}`,
      `priority = ${priority}`,
      config.timeouts?.[name] ? `timeouts = ${config.timeouts[name]}` : "",
      "",
    ].filter((line, index, lines) => line !== "" || index === lines.length - 1).join("\n");
  };
  return `# case ${version}
[server]
keepalive_ms = ${config.keepaliveMs ?? 600_000}

[routing]
cache_affinity = false

[timeouts]
first_byte = 600_000
first_content = 600_000
idle = 600_000
total = 3_600_000

[failover]
${
    Object.entries({ ...FAILOVER, ...config.failover })
      .map(([key, value]) => `${key} = ${value}`).join("\n")
  }

[groups.default]
models = ["*"]

[models.m]
context_window = 100_000
input_price = ${PRICES.m.input}
output_price = ${PRICES.m.output}
fallbacks = ["big"]
prefill = ${prefill}

[models.big]
context_window = 400_000
input_price = ${PRICES.big.input}
output_price = ${PRICES.big.output}
prefill = ${prefill}

${channel("a", "m", 2)}
${channel("b", "m", 1)}
${channel("c", "big", 1)}`;
}

/**
 * The books add up: the row's cost is its attempts' sum and what the account paid; each
 * attempt is priced at its own model's prices; one that failed before anything reached the
 * client costs nothing; one that served or was cut costs what it delivered.
 */
function checkBooks(row: LedgerRow, attempts: AttemptLog[], charged: number): void {
  const sum = attempts.reduce((total, attempt) => total + (attempt.costMicros ?? 0), 0);
  assert.equal(row.attempts, attempts.length, "the row counts its attempts");
  assert.equal(row.cost_micros, sum, "the row's cost is the sum of its attempts'");
  assert.equal(charged, row.cost_micros, "the account paid exactly the row's cost");
  let input = 0;
  let output = 0;
  for (const attempt of attempts) {
    const prices = PRICES[attempt.model as keyof typeof PRICES];
    assert.ok(prices, `attempt on an unknown model ${attempt.model}`);
    if (attempt.outcome === "failed" && !attempt.usage) {
      assert.equal(attempt.costMicros ?? 0, 0, "a failed attempt costs nothing");
      continue;
    }
    const usage = attempt.usage;
    assert.ok(usage, `attempt ${JSON.stringify(attempt)} has its usage`);
    assert.equal(
      attempt.costMicros,
      usage.input_tokens * prices.input + usage.output_tokens * prices.output,
      `attempt on ${attempt.channel} priced at ${attempt.model}'s prices`,
    );
    input += usage.input_tokens;
    output += usage.output_tokens;
  }
  assert.equal(row.input_tokens, input, "the row's input is its attempts'");
  assert.equal(row.output_tokens, output, "the row's output is its attempts'");
}

/** What a client saw of an answer, streamed or whole. */
export interface Seen {
  status: number;
  /** The answer's text, as the client put it together. */
  text: string;
  /** Stream only: preamble events (role chunk, `response.created`, `message_start`). */
  preambles: number;
  /** Usage reports (a whole answer's `usage`; a stream's usage chunk or event). */
  usages: number;
  /** The last usage reported, in input/output tokens. */
  usage?: { input: number; output: number };
  /** Whether the stream ended as its protocol ends an answer, or the body was JSON. */
  clean: boolean;
  /** Error events in the stream, or the error body of an HTTP error. */
  errors: Record<string, unknown>[];
  /** Stream events whose data is not JSON. */
  malformed: number;
  /** The stream's last event. */
  last?: SseEvent;
}

/** Reads a whole (non-stream) answer or error body of `entry`'s protocol. */
export async function readWhole(entry: Protocol, response: Response): Promise<Seen> {
  const body = await response.json() as Record<string, unknown>;
  if (response.status !== 200) {
    return {
      status: response.status,
      text: "",
      preambles: 0,
      usages: 0,
      clean: false,
      errors: [body],
      malformed: 0,
    };
  }
  const usage = wholeUsage(entry, body);
  return {
    status: 200,
    text: wholeText(entry, body),
    preambles: 0,
    usages: usage ? 1 : 0,
    usage,
    clean: true,
    errors: [],
    malformed: 0,
  };
}

/** Reads a streamed answer of `entry`'s protocol to its end (or an HTTP error's body). */
export async function readStream(entry: Protocol, response: Response): Promise<Seen> {
  if (response.status !== 200) return await readWhole(entry, response);
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  const events = await readEvents(response);
  const seen: Seen = {
    status: 200,
    text: "",
    preambles: 0,
    usages: 0,
    clean: false,
    errors: [],
    malformed: 0,
    last: events.at(-1),
  };
  for (const event of events) {
    if (event.data === "[DONE]") {
      seen.clean = true;
      continue;
    }
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data);
    } catch {
      seen.malformed++;
      continue;
    }
    if (entry === "chat") chatEvent(data, seen);
    else if (entry === "responses") responsesEvent(event.event, data, seen);
    else messagesEvent(event.event, data, seen);
  }
  return seen;
}

function chatEvent(data: Record<string, unknown>, seen: Seen): void {
  if (data.error) return void seen.errors.push(data);
  const chunk = data as {
    choices?: { delta?: { role?: string; content?: string | null } }[];
    usage?: { prompt_tokens: number; completion_tokens: number } | null;
  };
  const delta = chunk.choices?.[0]?.delta;
  if (delta?.role) seen.preambles++;
  seen.text += delta?.content ?? "";
  if (chunk.usage) {
    seen.usages++;
    seen.usage = { input: chunk.usage.prompt_tokens, output: chunk.usage.completion_tokens };
  }
}

function responsesEvent(name: string | undefined, data: Record<string, unknown>, seen: Seen) {
  if (name === "error" || name === "response.failed") return void seen.errors.push(data);
  if (name === "response.created") seen.preambles++;
  if (name === "response.output_text.delta") seen.text += data.delta as string;
  if (name === "response.completed") {
    seen.clean = true;
    const usage = (data.response as { usage?: { input_tokens: number; output_tokens: number } })
      .usage;
    if (usage) {
      seen.usages++;
      seen.usage = { input: usage.input_tokens, output: usage.output_tokens };
    }
  }
}

function messagesEvent(name: string | undefined, data: Record<string, unknown>, seen: Seen) {
  if (name === "error") return void seen.errors.push(data);
  if (name === "message_start") seen.preambles++;
  const delta = data.delta as { type?: string; text?: string } | undefined;
  if (name === "content_block_delta" && delta?.type === "text_delta") seen.text += delta.text;
  if (name === "message_delta") {
    const usage = data.usage as { input_tokens?: number; output_tokens: number } | undefined;
    if (usage) {
      seen.usages++;
      seen.usage = {
        input: usage.input_tokens ?? seen.usage?.input ?? 0,
        output: usage.output_tokens,
      };
    }
  }
  if (name === "message_start") {
    const usage = (data.message as { usage?: { input_tokens: number } }).usage;
    if (usage) seen.usage = { input: usage.input_tokens, output: 0 };
  }
  if (name === "message_stop") seen.clean = true;
}

function wholeText(entry: Protocol, body: Record<string, unknown>): string {
  if (entry === "chat") {
    return (body as { choices: { message: { content: string | null } }[] }).choices[0]?.message
      .content ?? "";
  }
  if (entry === "responses") {
    const output = (body as { output: { type: string; content?: { text?: string }[] }[] }).output;
    return output.filter((item) => item.type === "message")
      .flatMap((item) => item.content ?? []).map((part) => part.text ?? "").join("");
  }
  return (body as { content: { type: string; text?: string }[] }).content
    .filter((block) => block.type === "text").map((block) => block.text ?? "").join("");
}

function wholeUsage(entry: Protocol, body: Record<string, unknown>) {
  if (entry === "chat") {
    const usage = body.usage as { prompt_tokens: number; completion_tokens: number } | undefined;
    return usage && { input: usage.prompt_tokens, output: usage.completion_tokens };
  }
  const usage = body.usage as { input_tokens: number; output_tokens: number } | undefined;
  return usage && { input: usage.input_tokens, output: usage.output_tokens };
}

/** A request of `entry`'s protocol for model `m`, streamed or not. */
export function requestOf(
  entry: Protocol,
  stream: boolean,
  text = "hi there",
): Record<string, unknown> {
  if (entry === "chat") {
    return {
      model: "m",
      messages: [{ role: "user", content: text }],
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    };
  }
  if (entry === "responses") return { model: "m", input: text, store: false, stream };
  return { model: "m", max_tokens: 256, messages: [{ role: "user", content: text }], stream };
}
