const which = Deno.args[0] ?? "none";
if (which === "mini") await import("npm:zod@^4.6.7/mini");
if (which === "classic") await import("npm:zod@^4.6.7");
if (which === "core") await import("npm:zod@^4.6.7/v4/core");
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
