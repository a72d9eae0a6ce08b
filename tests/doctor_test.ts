/**
 * `tollgate doctor` against tollgate itself and against small fake gateways that misbehave
 * in each way it diagnoses: a doubled "/v1", a key refused in one header but not the other,
 * 503 on one entry point, a stream that never sends its final event, and a wrong key.
 */
import assert from "node:assert/strict";
import { runCli } from "../src/cli/main.ts";
import type { DoctorReport } from "../src/doctor/run_doctor.ts";
import type { EntryPoint } from "../src/doctor/entry_points.ts";
import { chatBody, chatFrames } from "./fakes/chat_wire.ts";
import { geminiBody, geminiStream } from "./fakes/gemini_wire.ts";
import { messagesBody, messagesFrames } from "./fakes/messages_wire.ts";
import type { FakeReply, WireContext } from "./fakes/reply.ts";
import { responsesBody, responsesFrames } from "./fakes/responses_wire.ts";
import { channel, configWith, startGateway } from "./harness.ts";
import { closedPort } from "./support.ts";

const FAKE_KEY = "sk-fakegateway0123456789abcdefWXYZ";
const FAKE_MODEL = "fake-model";

/** What one doctor run printed and its exit status. */
interface DoctorRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function doctor(args: string[]): Promise<DoctorRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    ["doctor", ...args],
    { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) },
    { env: () => undefined },
  );
  return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
}

async function doctorJson(args: string[]): Promise<DoctorRun & { report: DoctorReport }> {
  const run = await doctor([...args, "--json"]);
  return { ...run, report: JSON.parse(run.stdout) };
}

function client(report: DoctorReport, kind: string) {
  const found = report.clients.find((verdict) => verdict.kind === kind);
  assert.ok(found, `no verdict for ${kind}`);
  return found;
}

function assertNoSecret(run: DoctorRun, secret: string): void {
  assert.ok(!run.stdout.includes(secret), "the key appears in stdout");
  assert.ok(!run.stderr.includes(secret), "the key appears in stderr");
}

// ---- tollgate itself ----

Deno.test("doctor: tollgate with the echo channel works for every client kind", async () => {
  const gateway = await startGateway(
    configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
  );
  try {
    const { secret } = await gateway.createKey();
    const run = await doctorJson(["--base-url", gateway.baseUrl, "--key", secret]);
    assert.equal(run.code, 0, run.stdout);
    assertNoSecret(run, secret);
    const { report } = run;
    assert.equal(report.works, true);
    assert.equal(report.model, "echo");
    assert.equal(report.model_source, "listed");
    assert.equal(report.base_url.probed_root, gateway.url);
    assert.equal(report.base_url.ok, true);
    assert.deepEqual(report.findings, []);
    // The model list, then whole answer and stream on chat and responses (Bearer), on
    // messages with x-api-key and with Bearer, and on Gemini's with x-goog-api-key.
    assert.equal(report.probes.length, 11);
    for (const probe of report.probes) {
      assert.equal(probe.ok, true, JSON.stringify(probe));
      assert.ok(probe.request_id, "tollgate sends x-request-id");
    }
    assert.deepEqual(report.support_reports, []);
    assert.ok(report.clients.every((verdict) => verdict.works));
    assert.equal(client(report, "responses_only_agent").base_url, gateway.baseUrl);
    assert.equal(client(report, "messages_only_agent").base_url, gateway.url);
    assert.equal(client(report, "multi_protocol_agent").base_url, gateway.baseUrl);
    assert.equal(client(report, "gemini_agent").base_url, gateway.url);
    assert.equal(report.key, `sk-…${secret.slice(-4)}`);
    assert.match(run.stderr, /doctor: \[1\] GET \/v1\/models/);
  } finally {
    await gateway.close();
  }
});

Deno.test("doctor: the text report of tollgate lists probes and client kinds, key redacted", async () => {
  const gateway = await startGateway(
    configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
  );
  try {
    const { secret } = await gateway.createKey();
    // A trailing slash: the address as given answers 404, the corrected one is probed.
    const run = await doctor(["--base-url", `${gateway.url}/`, "--key", secret, "--model", "echo"]);
    // Every client given this URL gets 404, though the corrected one works: exit 1.
    assert.equal(run.code, 1, run.stdout);
    assertNoSecret(run, secret);
    assert.match(run.stdout, /ends with "\/"/);
    assert.match(run.stdout, /Remove the trailing slash/);
    assert.match(
      run.stdout,
      /messages-only coding agent \(Claude Code\) +yes +http:\/\/127\.0\.0\.1:\d+ /,
    );
    assert.match(
      run.stdout,
      /responses-only coding agent \(Codex CLI\) +yes +http:\/\/127\.0\.0\.1:\d+\/v1 /,
    );
    assert.match(
      run.stdout,
      /^WRONG BASE URL: The base URL "http:\/\/127\.0\.0\.1:\d+\/" is wrong \(see the findings\): configure the client table's values instead\. At http:\/\/127\.0\.0\.1:\d+: "echo" works on \/v1\/chat\/completions, \/v1\/responses, \/v1\/messages/m,
    );
    // The 404 of the address as given has its support report.
    assert.match(run.stdout, /Support reports/);
    assert.match(run.stdout, /status +404/);
  } finally {
    await gateway.close();
  }
});

// ---- fake gateways ----

/** How a fake gateway misbehaves; `{}` is a gateway that works. */
interface Misbehaviour {
  /** Answer requests with the key in x-api-key with 401 (Bearer still works). */
  rejectApiKeyHeader?: boolean;
  /** Answer this entry point with 503. */
  unavailable?: EntryPoint;
  /** Streams on this entry point send everything but their final event, then stay open. */
  endlessStream?: EntryPoint;
}

interface FakeGateway {
  root: string;
  close(): Promise<void>;
}

const PATHS: Record<string, EntryPoint> = {
  "/v1/chat/completions": "chat",
  "/v1/responses": "responses",
  "/v1/messages": "messages",
  [`/v1beta/models/${FAKE_MODEL}:generateContent`]: "gemini",
  [`/v1beta/models/${FAKE_MODEL}:streamGenerateContent`]: "gemini",
};

/** A gateway of all three protocols on 127.0.0.1 that misbehaves as asked. */
function startFakeGateway(misbehaviour: Misbehaviour = {}): Promise<FakeGateway> {
  // Streams left open on purpose; closed when the client gives up or the fake stops.
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const release = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!open.delete(controller)) return;
    try {
      controller.close();
    } catch {
      // already cancelled by the client
    }
  };
  let served = 0;
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: (addr) => listening.resolve(addr) },
    async (request) => {
      const requestId = `fake_req_${++served}`;
      const path = new URL(request.url).pathname;
      const entryPoint = PATHS[path];
      const isMessages = entryPoint === "messages";
      const error = (status: number, type: string, message: string) =>
        Response.json(
          isMessages
            ? { type: "error", error: { type, message }, request_id: requestId }
            : { error: { message, type, param: null, code: type } },
          { status, headers: { "x-request-id": requestId } },
        );
      if (path !== "/v1/models" && entryPoint === undefined) {
        return error(404, "not_found", `Unknown path ${path}`);
      }
      const apiKey = request.headers.get("x-api-key") ?? request.headers.get("x-goog-api-key");
      const bearer = request.headers.get("authorization");
      if (apiKey !== null && misbehaviour.rejectApiKeyHeader) {
        return error(401, "authentication_error", "Send the key as Authorization: Bearer.");
      }
      if (apiKey !== FAKE_KEY && bearer !== `Bearer ${FAKE_KEY}`) {
        return error(401, "authentication_error", "Invalid API key.");
      }
      if (entryPoint === undefined) {
        return Response.json({
          object: "list",
          data: [{ id: FAKE_MODEL, object: "model", created: 0, owned_by: "fake" }],
        }, { headers: { "x-request-id": requestId } });
      }
      if (entryPoint === misbehaviour.unavailable) {
        return error(503, "channel:no_available_key", "No available channel for this model.");
      }
      const body = await request.json() as Record<string, unknown>;
      const context: WireContext = {
        model: String(body.model ?? FAKE_MODEL),
        id: requestId,
        created: 0,
        usage: { input: 5, output: 1, cached: 0, cacheWrite: 0, reasoning: 0 },
        request: body,
      };
      const reply: FakeReply = { text: "ok" };
      if (body.stream !== true && !path.endsWith(":streamGenerateContent")) {
        const whole = {
          chat: chatBody,
          responses: responsesBody,
          messages: messagesBody,
          gemini: geminiBody,
        };
        return Response.json(whole[entryPoint](reply, context), {
          headers: { "x-request-id": requestId },
        });
      }
      const frames = {
        chat: chatFrames,
        responses: responsesFrames,
        messages: messagesFrames,
        gemini: (reply: FakeReply, context: WireContext) =>
          geminiStream(reply, context).map((frame) => frame.text),
      };
      const all = frames[entryPoint](reply, context);
      const endless = entryPoint === misbehaviour.endlessStream;
      const sent = endless ? all.slice(0, -1) : all;
      const encoder = new TextEncoder();
      let held: ReadableStreamDefaultController<Uint8Array> | undefined;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const frame of sent) controller.enqueue(encoder.encode(frame));
          if (!endless) return controller.close();
          held = controller;
          open.add(controller);
          request.signal.addEventListener("abort", () => release(controller), { once: true });
        },
        cancel() {
          if (held) open.delete(held);
        },
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream", "x-request-id": requestId },
      });
    },
  );
  return listening.promise.then(({ port }) => ({
    root: `http://127.0.0.1:${port}`,
    async close() {
      for (const controller of [...open]) release(controller);
      await server.shutdown();
    },
  }));
}

/** Runs `test` with a fake gateway, stopping it however the test ends. */
async function withFake(
  misbehaviour: Misbehaviour,
  test: (fake: FakeGateway) => Promise<void>,
): Promise<void> {
  const fake = await startFakeGateway(misbehaviour);
  try {
    await test(fake);
  } finally {
    await fake.close();
  }
}

Deno.test("doctor: a well-behaved fake gateway works for every client kind", async () => {
  await withFake({}, async (fake) => {
    const run = await doctorJson(["--base-url", fake.root, "--key", FAKE_KEY]);
    assert.equal(run.code, 0, run.stdout);
    assert.equal(run.report.model, FAKE_MODEL);
    assert.ok(run.report.probes.every((probe) => probe.ok), run.stdout);
    assert.ok(run.report.clients.every((verdict) => verdict.works));
  });
});

Deno.test("doctor: a doubled /v1 answers 404 and the diagnosis names the fix", async () => {
  await withFake({}, async (fake) => {
    const run = await doctorJson(["--base-url", `${fake.root}/v1/v1`, "--key", FAKE_KEY]);
    const { report } = run;
    assert.ok(report.findings.some((finding) => finding.code === "doubled_v1"));
    const [given, corrected] = report.probes;
    assert.equal(given?.url, `${fake.root}/v1/v1/models`);
    assert.equal(given?.status, 404);
    assert.match(given!.diagnosis, /Wrong address/);
    assert.match(given!.diagnosis, /repeats "\/v1"/);
    assert.ok(
      given!.diagnosis.includes(`configure ${fake.root}/v1 for OpenAI-style clients`),
      given!.diagnosis,
    );
    assert.equal(corrected?.url, `${fake.root}/v1/models`);
    assert.equal(corrected?.ok, true);
    assert.equal(report.base_url.probed_root, fake.root);
    assert.equal(client(report, "responses_only_agent").base_url, `${fake.root}/v1`);
    assert.equal(client(report, "messages_only_agent").base_url, fake.root);
    assert.equal(report.support_reports[0]?.status, 404);
    assert.equal(report.works, true, "the model works once the base URL is corrected");
    assert.equal(report.base_url.ok, false);
    assert.equal(run.code, 1, "but the base URL as given is wrong");
  });
});

Deno.test("doctor: 401 on x-api-key but not on Bearer fails messages-only agents only", async () => {
  await withFake({ rejectApiKeyHeader: true }, async (fake) => {
    const run = await doctorJson(["--base-url", `${fake.root}/v1`, "--key", FAKE_KEY]);
    assert.equal(run.code, 0, run.stdout);
    assertNoSecret(run, FAKE_KEY);
    const { report } = run;
    const rejected = report.probes.filter((probe) => probe.auth === "x-api-key");
    assert.equal(rejected.length, 2);
    for (const probe of rejected) {
      assert.equal(probe.status, 401);
      assert.match(probe.diagnosis, /rejects the key sent as x-api-key/);
      assert.match(probe.diagnosis, /ANTHROPIC_AUTH_TOKEN/);
    }
    const messagesOnly = client(report, "messages_only_agent");
    assert.equal(messagesOnly.works, false);
    assert.match(messagesOnly.note, /works only when the key is sent as Bearer/);
    assert.deepEqual(messagesOnly.failed_probes, rejected.map((probe) => probe.id));
    assert.equal(client(report, "multi_protocol_agent").works, true);
    assert.equal(client(report, "responses_only_agent").works, true);
    const messages = report.entry_points.find((verdict) => verdict.entry_point === "messages");
    assert.deepEqual(messages?.works_with, ["bearer"]);
    // The support report: request id, time with zone, model, endpoint, status, body, key.
    const support = report.support_reports.find((item) => item.probe === rejected[0]!.id);
    assert.ok(support);
    assert.match(support.request_id ?? "", /^fake_req_\d+$/);
    assert.match(support.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/);
    assert.equal(support.model, FAKE_MODEL);
    assert.equal(support.endpoint, `POST ${fake.root}/v1/messages`);
    assert.equal(support.status, 401);
    assert.match(support.error_body ?? "", /"authentication_error"/);
    assert.equal(support.key, "sk-…WXYZ");
  });
});

Deno.test("doctor: 503 on one entry point fails the clients that need it", async () => {
  await withFake({ unavailable: "responses" }, async (fake) => {
    const run = await doctorJson(["--base-url", fake.root, "--key", FAKE_KEY]);
    assert.equal(run.code, 0, run.stdout);
    const { report } = run;
    const failed = report.probes.filter((probe) => !probe.ok);
    assert.deepEqual(failed.map((probe) => [probe.endpoint, probe.status]), [
      ["responses", 503],
      ["responses", 503],
    ]);
    assert.match(failed[0]!.diagnosis, /No usable channel for "fake-model" on \/v1\/responses/);
    assert.equal(client(report, "responses_only_agent").works, false);
    assert.equal(client(report, "messages_only_agent").works, true);
    const multi = client(report, "multi_protocol_agent");
    assert.equal(multi.works, true);
    assert.match(multi.note, /chat-completions package/);
    assert.match(
      client(report, "openai_compatible_assistant").note,
      /keep the wire API at completions/,
    );
    assert.equal(report.support_reports.length, 2);
  });
});

Deno.test("doctor: a stream that never sends its final event is diagnosed within the probe timeout", async () => {
  await withFake({ endlessStream: "chat" }, async (fake) => {
    const run = await doctorJson([
      "--base-url",
      fake.root,
      "--key",
      FAKE_KEY,
      "--timeout-ms",
      "1000",
    ]);
    assert.equal(run.code, 0, run.stdout);
    const { report } = run;
    const failed = report.probes.filter((probe) => !probe.ok);
    assert.equal(failed.length, 1, run.stdout);
    const [endless] = failed;
    assert.equal(endless!.endpoint, "chat");
    assert.equal(endless!.stream, true);
    assert.equal(endless!.outcome, "timeout");
    assert.equal(endless!.status, 200);
    assert.match(endless!.diagnosis, /never sent its final event "\[DONE\]" within 1000 ms/);
    const chat = report.entry_points.find((verdict) => verdict.entry_point === "chat");
    assert.equal(chat?.works, false);
    const assistant = client(report, "openai_compatible_assistant");
    assert.equal(assistant.works, true);
    assert.match(assistant.note, /set the wire API to responses/);
  });
});

Deno.test("doctor: a wrong key is a 401 on the model list and exit 1", async () => {
  await withFake({}, async (fake) => {
    const wrong = "sk-wrongkey0123456789abcdef9876";
    const run = await doctorJson(["--base-url", fake.root, "--key", wrong]);
    assert.equal(run.code, 1);
    assertNoSecret(run, wrong);
    const { report } = run;
    assert.equal(report.works, false);
    assert.equal(report.probes.length, 1, "nothing is probed after the key is refused");
    assert.equal(report.probes[0]?.status, 401);
    assert.match(report.probes[0]!.diagnosis, /The key is rejected/);
    assert.equal(report.support_reports[0]?.key, "sk-…9876");
    const text = await doctor(["--base-url", fake.root, "--key", wrong]);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^NOT WORKING: /m);
    assertNoSecret(text, wrong);
  });
});

Deno.test("doctor: an address nothing listens on is unreachable, exit 1", async () => {
  const root = `http://127.0.0.1:${closedPort()}`;
  const run = await doctorJson(["--base-url", root, "--key", FAKE_KEY, "--model", FAKE_MODEL]);
  assert.equal(run.code, 1);
  const { report } = run;
  assert.equal(report.probes.length, 1, "nothing more is probed at an unreachable address");
  assert.equal(report.probes[0]?.outcome, "network_error");
  assert.match(report.probes[0]!.diagnosis, /^Could not reach http:\/\/127\.0\.0\.1:\d+/);
  assert.equal(report.support_reports[0]?.status, null);
});

Deno.test("doctor: missing or malformed flags are bad usage", async () => {
  const noKey = await doctor(["--base-url", "http://127.0.0.1:1"]);
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /^tollgate: Missing --key/);
  assert.match(noKey.stderr, /tollgate doctor --base-url URL --key KEY/);
  const noUrl = await doctor(["--key", "sk-x"]);
  assert.equal(noUrl.code, 2);
  assert.match(noUrl.stderr, /Missing --base-url/);
  const badTimeout = await doctor(["--base-url", "http://x", "--key", "k", "--timeout-ms", "soon"]);
  assert.equal(badTimeout.code, 2);
  assert.match(badTimeout.stderr, /Invalid --timeout-ms "soon"/);
  const help = await doctor(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /tollgate doctor --base-url URL/);
});
