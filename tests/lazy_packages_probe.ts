/**
 * Run as its own process by lazy_packages_test.ts: a gateway on a SQLite file (started in
 * this process as `tollgate serve` starts it, on a database whose account and key the
 * CLI made in processes of its own) answers plain chat requests from a chat upstream
 * that reports usage, then one echo request, then a metrics scrape; prints which of the
 * watched packages were loaded after its start and after each step, as JSON. The loaded scripts come
 * from V8's inspector, which replays every parsed script to a session that enables its
 * debugger. Nothing here may import those packages, nor tests/fakes (which import
 * gpt-tokenizer), nor open the database with its query builder.
 */
import { Session } from "node:inspector";
import { silentLogger } from "../src/log.ts";
import { startServer } from "../src/server.ts";
import { channel, configWith } from "./harness.ts";
import { runTollgate } from "./process.ts";

/**
 * zod, which validates the config at start, and the packages loaded only when needed
 * (OpenTelemetry's API only with OTEL_DENO on, which the probe leaves off).
 */
const WATCHED = [
  "zod",
  "gpt-tokenizer",
  "prom-client",
  "pg",
  "@libsql/client",
  "libsql",
  "kysely",
  "@opentelemetry/api",
];

/** Which of the watched packages have had a script parsed in this process. */
async function loadedPackages(): Promise<string[]> {
  const session = new Session();
  session.connect();
  const urls: string[] = [];
  session.on("Debugger.scriptParsed", (message) => void urls.push(message.params.url));
  await new Promise<void>((resolve, reject) =>
    session.post("Debugger.enable", (error) => error ? reject(error) : resolve())
  );
  session.disconnect();
  if (urls.length === 0) throw new Error("Listing loaded scripts failed: the inspector gave none.");
  return WATCHED.filter((name) => urls.some((url) => url.includes(`/node_modules/${name}/`)));
}

const USAGE = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };

/** A chat upstream that reports usage, streamed or not. */
function chatUpstream(body: { model: string; stream?: boolean }): Response {
  const base = { id: "chatcmpl-1", created: 1, model: body.model };
  if (!body.stream) {
    const message = { role: "assistant", content: "ok" };
    return Response.json({
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: "stop" }],
      usage: USAGE,
    });
  }
  const chunk = (rest: Record<string, unknown>) =>
    `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...rest })}\n\n`;
  const text = [
    chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "ok" } }], usage: null }),
    chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: null }),
    chunk({ choices: [], usage: USAGE }),
    "data: [DONE]\n\n",
  ].join("");
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

const upstream = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  async (request) => chatUpstream(await request.json()),
);
const dir = await Deno.makeTempDir({ prefix: "tollgate_lazy_" });
const configPath = `${dir}/config.toml`;
await Deno.writeTextFile(
  configPath,
  `[database]\nurl = "file:${dir}/tollgate.db"\n\n` + configWith(
    channel({
      name: "chat",
      protocol: "chat",
      baseUrl: `http://127.0.0.1:${upstream.addr.port}/v1`,
      models: ["m1"],
    }) + channel({ name: "echo", protocol: "echo", models: ["echo"] }),
  ),
);
/** Runs the CLI in its own process; returns its stdout. */
async function cli(...args: string[]): Promise<string> {
  const { code, stdout } = await runTollgate([...args, "--config", configPath]);
  if (code !== 0) throw new Error(`tollgate ${args.join(" ")} failed: ${stdout}`);
  return stdout;
}
await cli("account", "create", "probe", "--unlimited");
const { key: secret } = JSON.parse(await cli("key", "create", "--account", "probe", "--json"));
const server = await startServer({
  configPath,
  log: silentLogger,
  port: 0,
  requestLog: { line: () => {}, flush: () => Promise.resolve() },
});
const steps: Record<string, string[]> = {};
try {
  steps.start = await loadedPackages();
  const messages = [{ role: "user", content: "hello there" }];
  const ask = async (body: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`Request failed: ${response.status} ${text}`);
  };
  await ask({ model: "m1", messages });
  await ask({ model: "m1", messages, stream: true });
  await server.settled();
  steps.chat = await loadedPackages();
  await ask({ model: "echo", messages });
  steps.echo = await loadedPackages();
  const metrics = await fetch(`${server.url}/metrics`);
  if (metrics.status !== 200) throw new Error(`Scrape failed: ${metrics.status}`);
  await metrics.text();
  steps.metrics = await loadedPackages();
} finally {
  await server.shutdown();
  await upstream.shutdown();
  await Deno.remove(dir, { recursive: true });
}
console.log(JSON.stringify(steps));
