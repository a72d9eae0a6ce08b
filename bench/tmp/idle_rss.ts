import { startChild } from "../processes.ts";
const fake = await startChild("fake", "fake_upstream.ts", []);
const which = Deno.args[0] ?? "tollgate";
const server = which === "bare"
  ? await startChild("bare", "bare_proxy.ts", [fake.ready.url])
  : await startChild("tollgate", "tollgate_server.ts", [fake.ready.url], [
    "--unstable-no-legacy-abort",
  ]);
const url = server.ready.url;
const key = String(server.ready.pricedKey ?? "");
for (let i = 0; i < 3; i++) {
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: which === "bare" ? "bench" : "bench-priced",
      messages: [{ role: "user", content: "hi" }],
    }),
  });
  await r.text();
}
await new Promise((r) => setTimeout(r, 500));
const rollup = await Deno.readTextFile(`/proc/${server.pid}/smaps_rollup`);
console.log(
  which,
  rollup.split("\n").filter((l) =>
    /^(Rss|Pss|Anonymous|Shared_Clean|Private_Clean|Private_Dirty)/.test(l)
  ).join(" | "),
);
// Top mappings by Rss
const smaps = await Deno.readTextFile(`/proc/${server.pid}/smaps`);
const entries: { name: string; rss: number; anon: number }[] = [];
let current: { name: string; rss: number; anon: number } | undefined;
for (const line of smaps.split("\n")) {
  const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
  if (head) {
    current = { name: head[1] || "[anon]", rss: 0, anon: 0 };
    entries.push(current);
    continue;
  }
  const rss = /^Rss:\s+(\d+)/.exec(line);
  if (rss && current) current.rss += Number(rss[1]);
  const anon = /^Anonymous:\s+(\d+)/.exec(line);
  if (anon && current) current.anon += Number(anon[1]);
}
const byName = new Map<string, { rss: number; anon: number }>();
for (const e of entries) {
  const v = byName.get(e.name) ?? { rss: 0, anon: 0 };
  v.rss += e.rss;
  v.anon += e.anon;
  byName.set(e.name, v);
}
for (const [name, v] of [...byName].sort((a, b) => b[1].rss - a[1].rss).slice(0, 8)) {
  console.log(
    `  ${(v.rss / 1024).toFixed(1)} MiB rss, ${(v.anon / 1024).toFixed(1)} anon  ${name}`,
  );
}
await server.stop();
await fake.stop();
