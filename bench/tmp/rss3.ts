const which = Deno.args[0] ?? "none";
const mods: Record<string, string> = {
  zod: "zod",
  prom: "prom-client",
  toml: "smol-toml",
  esp: "eventsource-parser",
  server: "../../src/server.ts",
  metrics: "../../src/observability/metrics.ts",
  config: "../../src/config/load.ts",
  app: "../../src/app.ts",
  db: "../../src/db/database.ts",
};
if (mods[which]) await import(mods[which]);
await new Promise((r) => setTimeout(r, 300));
const status = Deno.readTextFileSync("/proc/self/status");
const m = Deno.memoryUsage();
console.log(
  which.padEnd(10),
  "rss",
  (Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024).toFixed(1),
  "heapTotal",
  (m.heapTotal / 1048576).toFixed(1),
);
