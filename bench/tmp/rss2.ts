const which = Deno.args[0] ?? "none";
if (which === "process") await import("node:process");
if (which === "crypto") {
  const { hash } = await import("node:crypto");
  hash("sha256", "x", "hex");
}
if (which === "path") await import("node:path");
if (which === "timers") await import("node:timers");
if (which === "sqlite") {
  const { DatabaseSync } = await import("node:sqlite");
  new DatabaseSync(":memory:").exec("select 1");
}
if (which === "all") {
  await import("node:process");
  const { hash } = await import("node:crypto");
  hash("sha256", "x", "hex");
  await import("node:path");
  await import("node:timers");
  const { DatabaseSync } = await import("node:sqlite");
  new DatabaseSync(":memory:").exec("select 1");
}
await new Promise((r) => setTimeout(r, 300));
const status = Deno.readTextFileSync("/proc/self/status");
console.log(which.padEnd(10), "rss", (Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024).toFixed(1));
