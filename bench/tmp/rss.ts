const which = Deno.args[0] ?? "none";
if (which === "zod") await import("zod");
if (which === "hono") await import("hono");
if (which === "server") await import("../../src/server.ts");
if (which === "app") await import("../../src/app.ts");
if (which === "config") await import("../../src/config/load.ts");
if (which === "sqlite") {
  const { DatabaseSync } = await import("node:sqlite");
  new DatabaseSync(":memory:").exec("select 1");
}
if (which === "tokenizer") {
  await import("../../src/protocols/token_count.ts").then((m) => m.loadTokenCounter());
}
(globalThis as unknown as { gc?: () => void }).gc?.();
await new Promise((r) => setTimeout(r, 200));
(globalThis as unknown as { gc?: () => void }).gc?.();
const m = Deno.memoryUsage();
const status = Deno.readTextFileSync("/proc/self/status");
const rss = /VmRSS:\s+(\d+)/.exec(status)![1];
console.log(
  which.padEnd(10),
  "rss",
  (Number(rss) / 1024).toFixed(1),
  "heapUsed",
  (m.heapUsed / 1048576).toFixed(1),
  "heapTotal",
  (m.heapTotal / 1048576).toFixed(1),
  "external",
  (m.external / 1048576).toFixed(1),
);
