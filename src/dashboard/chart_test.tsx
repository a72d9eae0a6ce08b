import assert from "node:assert/strict";
import { StackedBars } from "./chart.tsx";

const TIMES = ["2030-01-01T00:00:00.000Z", "2030-01-02T00:00:00.000Z"];

/** The chart's HTML. */
async function render(stacks: { label: string; values: number[] }[]): Promise<string> {
  const chart = <StackedBars times={TIMES} stacks={stacks} format={String} label="Requests" />;
  return String(await chart.toString());
}

Deno.test("chart: each bucket's segments stack from the bottom, the tallest bar the full height", async () => {
  const html = await render([
    { label: "m1", values: [1, 4] },
    { label: "<m2>", values: [1, 0] },
  ]);
  const rects = [
    ...html.matchAll(/<rect class="(c\d)" x="([\d.]+)" y="([\d.]+)" width="8" height="([\d.]+)">/g),
  ]
    .map(([, colour, x, y, height]) => [colour, Number(x), Number(y), Number(height)]);
  assert.deepEqual(rects, [
    ["c0", 1, 75, 25],
    ["c1", 1, 50, 25],
    ["c0", 11, 0, 100],
  ]);
  assert.match(html, /<title>2030-01-02 00:00 · m1: 4<\/title>/);
  assert.match(html, /highest bar: 4/);
  assert.match(html, /&lt;m2&gt;/, "labels are escaped");
});

Deno.test("chart: nothing to draw says so", async () => {
  assert.match(await render([{ label: "m1", values: [0, 0] }]), /Nothing in this range yet/);
  assert.match(await render([]), /Nothing in this range yet/);
});
