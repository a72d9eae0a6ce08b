import assert from "node:assert/strict";
import { niceTop, StackedBars } from "./chart.tsx";

const TIMES = [Date.parse("2030-01-01T00:00:00Z"), Date.parse("2030-01-02T00:00:00Z")];

/** The chart's HTML. */
async function render(stacks: { label: string; values: number[] }[]): Promise<string> {
  const chart = (
    <StackedBars
      times={TIMES}
      stacks={stacks}
      format={String}
      when={(t) => new Date(t).toISOString().slice(0, 10)}
      tick={(t) => new Date(t).toISOString().slice(8, 10)}
      per="day"
      whole
      label="Requests"
    />
  );
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
  assert.match(html, /<title>2030-01-02 · m1: 4<\/title>/);
  assert.match(html, /highest: 4 \(2030-01-02\)/);
  assert.match(html, /&lt;m2&gt;/, "labels are escaped");
});

Deno.test("chart: values on the y-axis, times under the bars, each bar's figures in a table", async () => {
  const html = await render([{ label: "m1", values: [3, 0] }, { label: "m2", values: [2, 0] }]);
  const axis = /<div class="y-axis"[^>]*>(.*?)<\/div>/.exec(html)?.[1] ?? "";
  assert.deepEqual([...axis.matchAll(/<span>([^<]*)<\/span>/g)].map((m) => m[1]), ["6", "3", "0"]);
  const ticks = /<div class="x-axis"[^>]*>(.*?)<\/div>/.exec(html)?.[1] ?? "";
  assert.deepEqual([...ticks.matchAll(/<span[^>]*>([^<]*)<\/span>/g)].map((m) => m[1]), [
    "01",
    "02",
  ]);
  // Only the bar with figures has a row: its total and its parts.
  assert.match(html, /Each day&#39;s figures \(1 of 2 with any\)/);
  assert.match(html, /<td class="num" data-label="Total">5<\/td>/);
  assert.match(html, /m1 3 · m2 2/);
});

Deno.test("chart: the scale's top reads plainly, its half too for whole numbers", () => {
  assert.deepEqual(
    [1, 3, 4.5, 7, 11, 250, 999, 1001].map((max) => niceTop(max, true)),
    [2, 4, 6, 8, 20, 400, 1000, 2000],
  );
  assert.equal(niceTop(0.3, false), 0.4);
});

Deno.test("chart: nothing to draw says so", async () => {
  assert.match(await render([{ label: "m1", values: [0, 0] }]), /Nothing in this range yet/);
  assert.match(await render([]), /Nothing in this range yet/);
});
