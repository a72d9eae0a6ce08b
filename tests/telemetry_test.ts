/**
 * OpenTelemetry through the runtime's own exporter (issue 42): a real `tollgate serve` with
 * `OTEL_DENO=true` exports to an OTLP receiver here (a real HTTP server on 127.0.0.1) over
 * http/protobuf, decoded with the official protobuf definitions (the code generated from
 * opentelemetry-proto that @opentelemetry/otlp-transformer ships). Each request has a span
 * of tollgate's own under the runtime's server span, lasting to its last byte, and a GenAI
 * client span per upstream attempt; the spans' and the metrics' token counts are the
 * ledger's; no prompt text goes out unless asked.
 */
import assert from "node:assert/strict";
// The generated protobuf code of opentelemetry-proto (CommonJS, with decoders).
import otlpRoot from "@opentelemetry/otlp-transformer/build/src/generated/root.js";
import { issueKey } from "../src/auth/issue_key.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";
import { channel, configWith } from "./harness.ts";
import { spawnServer } from "./process.ts";
import { chatBody, closedPort, messagesBody, type Scope, withScope } from "./support.ts";
import type { LedgerRow } from "../src/db/schema.ts";

interface KeyValue {
  key: string;
  value: unknown;
}
interface OtlpSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: { toString(): string };
  endTimeUnixNano: { toString(): string };
  attributes: KeyValue[];
  status?: { code?: number };
}

const proto = (otlpRoot as unknown as {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: Decoder } };
        metrics: { v1: { ExportMetricsServiceRequest: Decoder } };
      };
    };
  };
}).opentelemetry.proto.collector;
interface Decoder {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}

const hex = (bytes: Uint8Array | null) =>
  Array.from(bytes ?? [], (b) => b.toString(16).padStart(2, "0")).join("");
const nanos = (value: { toString(): string }) => BigInt(value.toString());

/** An attribute's value as a plain string or number (protobufjs decodes int64 as a Long). */
function attribute(span: { attributes: KeyValue[] }, key: string): string | number | undefined {
  const found = span.attributes.find((item) => item.key === key)?.value as
    | Record<string, unknown>
    | undefined;
  if (!found) return undefined;
  const { stringValue, intValue, doubleValue } = found;
  if (typeof stringValue === "string" && stringValue !== "") return stringValue;
  if (typeof intValue === "number") return intValue;
  if (intValue && typeof intValue === "object") {
    const { low, high } = intValue as { low: number; high: number };
    return high * 2 ** 32 + (low >>> 0);
  }
  return typeof doubleValue === "number" ? doubleValue : undefined;
}

/** An OTLP/HTTP receiver: every export's body, by signal. */
function startReceiver() {
  const bodies: { traces: Uint8Array[]; metrics: Uint8Array[]; types: Set<string> } = {
    traces: [],
    metrics: [],
    types: new Set(),
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const bytes = new Uint8Array(await req.arrayBuffer());
    bodies.types.add(req.headers.get("content-type") ?? "");
    const path = new URL(req.url).pathname;
    if (path === "/v1/traces") bodies.traces.push(bytes);
    if (path === "/v1/metrics") bodies.metrics.push(bytes);
    return new Response(new Uint8Array(), {
      headers: { "content-type": "application/x-protobuf" },
    });
  });
  return { server, bodies, url: `http://127.0.0.1:${server.addr.port}` };
}

/** What a `tollgate serve` with OTEL_DENO exported while `drive` sent it requests. */
interface Exported {
  spans: OtlpSpan[];
  metrics: Uint8Array[];
  types: Set<string>;
  ledger: LedgerRow[];
  downPort: number;
}

/**
 * Runs a real `tollgate serve` with `env` (OTEL_DENO on, exporting to a receiver here) on a
 * channel that is down and one to a fake that serves, lets `drive` send requests with a
 * key (`post`), stops it (the runtime exports what it holds as it exits) and returns what
 * reached the receiver, decoded, with the ledger.
 */
async function exported(
  s: Scope,
  env: Record<string, string>,
  drive: (post: (path: string, body: unknown, key?: string) => Promise<Response>) => Promise<void>,
): Promise<Exported> {
  const receiver = startReceiver();
  const fake = await s.fake({ name: "up", models: ["m"], behaviour: { cachedTokens: 2 } });
  const dir = await Deno.makeTempDir({ prefix: "tollgate_otel_" });
  const databaseUrl = `file:${dir}/tollgate.db`;
  const configPath = `${dir}/config.toml`;
  const downPort = closedPort();
  await Deno.writeTextFile(
    configPath,
    `[database]\nurl = "${databaseUrl}"\n\n` + configWith(
      channel({
        name: "down",
        protocol: "chat",
        baseUrl: `http://127.0.0.1:${downPort}/v1`,
        models: ["m"],
        keys: ["sk-down"],
        priority: 2,
      }) + channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["m"] }),
      "[failover]\nretries = 0\n",
    ),
  );
  const db = await openDatabase(databaseUrl);
  try {
    assert.equal((await db.migrate()).error, undefined);
    const account = await createAccount(db.kysely, {
      name: "otel",
      balanceMicros: 0,
      unlimited: true,
      createdAt: Date.now(),
    });
    const { secret } = await issueKey(db.kysely, {
      accountId: account!.id,
      group: "default",
      createdAt: Date.now(),
    });
    const server = await spawnServer(configPath, {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_SERVICE_NAME: "tollgate-test",
      OTEL_METRIC_EXPORT_INTERVAL: "200",
      ...env,
    });
    try {
      await drive((path, body, key = secret) =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      );
    } finally {
      server.child.kill("SIGTERM");
      await server.child.status;
    }
    await receiver.server.shutdown();
    const traceRequest = proto.trace.v1.ExportTraceServiceRequest;
    const spans: OtlpSpan[] = receiver.bodies.traces.flatMap((bytes) => {
      const decoded = traceRequest.decode(bytes) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      return decoded.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((scope) => scope.spans));
    });
    const ledger = await db.kysely.selectFrom("ledger").selectAll().orderBy("id").execute();
    return {
      spans,
      metrics: receiver.bodies.metrics,
      types: receiver.bodies.types,
      ledger,
      downPort,
    };
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("telemetry: spans under the runtime's server span and GenAI metrics reach an OTLP receiver, their tokens the ledger's", async () => {
  await withScope(async (s) => {
    const { spans, metrics, types, ledger, downPort } = await exported(s, {}, async (post) => {
      const ids: string[] = [];
      for (
        const [path, body] of [
          ["/v1/chat/completions", chatBody("m", "the secret prompt words")],
          ["/v1/chat/completions", chatBody("m", "stream please", { stream: true })],
          ["/v1/messages", messagesBody("m", "translated please")],
        ] as const
      ) {
        const response = await post(path, body);
        const text = await response.text();
        assert.equal(response.status, 200, text);
        ids.push(response.headers.get("x-request-id")!);
      }
      const refused = await post("/v1/chat/completions", chatBody("m"), "sk-wrong-0123456789");
      await refused.text();
      assert.equal(refused.status, 401);
      ids.push(refused.headers.get("x-request-id")!);
    });
    assert.deepEqual([...types], ["application/x-protobuf"]);
    const byId = new Map(spans.map((span) => [hex(span.spanId), span]));
    const requestSpans = spans.filter((span) => attribute(span, "tollgate.request_id"));
    assert.equal(requestSpans.length, 4, spans.map((span) => span.name).join(", "));
    assert.equal(ledger.length, 3);
    for (const row of ledger) {
      const span = requestSpans.find((item) =>
        attribute(item, "tollgate.request_id") === row.request_id
      )!;
      assert.ok(span, row.request_id);
      // Under the runtime's own server span (kind SERVER), which ends at the response head.
      const parent = byId.get(hex(span.parentSpanId))!;
      assert.ok(parent, "its parent span was exported");
      assert.equal(parent.kind, 2, "the runtime's server span");
      if (row.stream === 1) {
        // The runtime's span ends at the response head; a stream's, at its last byte.
        assert.ok(nanos(span.endTimeUnixNano) >= nanos(parent.endTimeUnixNano), "last byte");
      }
      assert.equal(attribute(span, "gen_ai.usage.input_tokens"), row.input_tokens);
      assert.equal(attribute(span, "gen_ai.usage.output_tokens"), row.output_tokens);
      // A client span per attempt: the channel that is down, then the one that served.
      const attempts = spans.filter((item) => hex(item.parentSpanId) === hex(span.spanId));
      assert.deepEqual(
        attempts.map((item) => [item.name, item.kind, attribute(item, "tollgate.channel")]),
        [["chat m", 3, "down"], ["chat m", 3, "up"]],
      );
      const [down, up] = attempts;
      assert.equal(attribute(down!, "error.type"), "network");
      assert.equal(attribute(down!, "server.port"), downPort);
      assert.equal(down!.status?.code, 2, "an error status");
      assert.equal(attribute(up!, "gen_ai.operation.name"), "chat");
      assert.equal(attribute(up!, "gen_ai.provider.name"), "openai");
      assert.equal(attribute(up!, "gen_ai.request.model"), "m");
      assert.equal(attribute(up!, "gen_ai.response.model"), "m");
      assert.equal(attribute(up!, "server.address"), "127.0.0.1");
      assert.equal(attribute(up!, "gen_ai.usage.input_tokens"), row.input_tokens);
      assert.equal(attribute(up!, "gen_ai.usage.output_tokens"), row.output_tokens);
      assert.equal(attribute(up!, "gen_ai.usage.cache_read.input_tokens"), row.cached_tokens);
      assert.ok(nanos(up!.endTimeUnixNano) <= nanos(span.endTimeUnixNano));
      assert.ok(nanos(down!.startTimeUnixNano) >= nanos(span.startTimeUnixNano));
    }
    const refusal = requestSpans.find((span) =>
      attribute(span, "http.response.status_code") === 401
    );
    assert.equal(attribute(refusal!, "error.type"), "authentication_error");
    // No prompt text unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
    assert.ok(spans.every((span) => !JSON.stringify(span.attributes).includes("secret prompt")));

    // The metrics' token counts: the last export of the cumulative histogram, by type.
    const metricsRequest = proto.metrics.v1.ExportMetricsServiceRequest;
    const tokenSums = { input: 0, output: 0 };
    let durations = 0;
    const last = metrics.map((bytes) =>
      metricsRequest.toObject(metricsRequest.decode(bytes), { longs: Number }) as {
        resourceMetrics?: {
          scopeMetrics?: {
            metrics?: {
              name: string;
              histogram?: {
                dataPoints?: { sum?: number; count?: number; attributes?: KeyValue[] }[];
              };
            }[];
          }[];
        }[];
      }
    ).filter((request) => JSON.stringify(request).includes("gen_ai.client.token.usage")).at(-1);
    assert.ok(last, "the GenAI metrics were exported");
    for (const resource of last.resourceMetrics ?? []) {
      for (const scope of resource.scopeMetrics ?? []) {
        for (const metric of scope.metrics ?? []) {
          for (const point of metric.histogram?.dataPoints ?? []) {
            if (metric.name === "gen_ai.client.token.usage") {
              const type = attribute({ attributes: point.attributes ?? [] }, "gen_ai.token.type");
              tokenSums[type as "input" | "output"] += point.sum ?? 0;
            }
            if (metric.name === "gen_ai.client.operation.duration") durations += point.count ?? 0;
          }
        }
      }
    }
    assert.equal(tokenSums.input, ledger.reduce((sum, row) => sum + row.input_tokens, 0));
    assert.equal(tokenSums.output, ledger.reduce((sum, row) => sum + row.output_tokens, 0));
    assert.equal(durations, 6, "one duration per attempt");
  });
});

Deno.test("telemetry: prompt and answer text on the attempts' spans only when asked", async () => {
  await withScope(async (s) => {
    const { spans } = await exported(
      s,
      { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" },
      async (post) => {
        const response = await post("/v1/chat/completions", chatBody("m", "words to capture"));
        assert.equal(response.status, 200, await response.text());
      },
    );
    const served = spans.find((span) =>
      span.kind === 3 && attribute(span, "tollgate.attempt.outcome") === "ok"
    )!;
    assert.match(String(attribute(served, "gen_ai.input.messages")), /words to capture/);
    assert.match(String(attribute(served, "gen_ai.output.messages")), /words to capture/);
  });
});
