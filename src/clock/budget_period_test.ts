import assert from "node:assert/strict";
import { periodBounds, periodCalendar } from "./budget_period.ts";
import { timeZone } from "./time_zone.ts";

const at = (iso: string) => Date.parse(iso);
const bounds = (period: "day" | "week" | "month" | "total", when: string, zone: string) => {
  const { start, end } = periodBounds(period, at(when), timeZone(zone));
  return [new Date(start).toISOString(), end === null ? null : new Date(end).toISOString()];
};

Deno.test("budget periods: UTC days, weeks from Monday, months; total never renews", () => {
  assert.deepEqual(bounds("day", "2030-03-09T23:59:59.999Z", "UTC"), [
    "2030-03-09T00:00:00.000Z",
    "2030-03-10T00:00:00.000Z",
  ]);
  // 2030-03-10 is a Sunday: its week began on Monday the 4th.
  assert.deepEqual(bounds("week", "2030-03-10T12:00:00Z", "UTC"), [
    "2030-03-04T00:00:00.000Z",
    "2030-03-11T00:00:00.000Z",
  ]);
  assert.deepEqual(bounds("month", "2030-12-31T23:00:00Z", "UTC"), [
    "2030-12-01T00:00:00.000Z",
    "2031-01-01T00:00:00.000Z",
  ]);
  assert.deepEqual(bounds("total", "2030-12-31T23:00:00Z", "UTC"), [
    "1970-01-01T00:00:00.000Z",
    null,
  ]);
});

Deno.test("budget periods: a half-hour zone's midnight, exactly, either side of it", () => {
  // India, +05:30: the 10th begins at 18:30 UTC on the 9th.
  assert.deepEqual(bounds("day", "2030-03-09T18:29:59.999Z", "+05:30"), [
    "2030-03-08T18:30:00.000Z",
    "2030-03-09T18:30:00.000Z",
  ]);
  assert.deepEqual(bounds("day", "2030-03-09T18:30:00.000Z", "+05:30"), [
    "2030-03-09T18:30:00.000Z",
    "2030-03-10T18:30:00.000Z",
  ]);
  // Newfoundland's standard time, -03:30: March begins at 03:30 UTC on the 1st.
  assert.deepEqual(bounds("month", "2030-03-01T03:29:59.999Z", "-03:30"), [
    "2030-02-01T03:30:00.000Z",
    "2030-03-01T03:30:00.000Z",
  ]);
  // A Monday 00:10 in +05:30 is still Sunday in UTC: the week is the zone's.
  assert.deepEqual(bounds("week", "2030-03-10T18:40:00Z", "+05:30"), [
    "2030-03-10T18:30:00.000Z",
    "2030-03-17T18:30:00.000Z",
  ]);
  // The same through the IANA name: its offsets come from Intl.
  assert.deepEqual(
    bounds("day", "2030-03-09T18:30:00.000Z", "Asia/Kolkata"),
    bounds("day", "2030-03-09T18:30:00.000Z", "+05:30"),
  );
});

Deno.test("budget periods: an IANA zone's days across a change of daylight saving", () => {
  // New York springs forward on 2030-03-10: that day has 23 hours.
  assert.deepEqual(bounds("day", "2030-03-10T12:00:00Z", "America/New_York"), [
    "2030-03-10T05:00:00.000Z",
    "2030-03-11T04:00:00.000Z",
  ]);
  assert.deepEqual(bounds("month", "2030-11-15T12:00:00Z", "America/New_York"), [
    "2030-11-01T04:00:00.000Z",
    "2030-12-01T05:00:00.000Z",
  ]);
});

Deno.test("budget periods: a calendar computes a period once, until it ends", () => {
  let computed = 0;
  const zone = timeZone("+05:30");
  const counting = { ...zone, offsetAt: (ms: number) => (computed++, zone.offsetAt(ms)) };
  const periodOf = periodCalendar(counting);
  const first = periodOf("day", at("2030-03-09T10:00:00Z"));
  const calls = computed;
  assert.equal(periodOf("day", at("2030-03-09T18:29:59Z")), first);
  assert.equal(computed, calls);
  assert.notEqual(periodOf("day", at("2030-03-09T18:30:00Z")), first);
});

Deno.test("budget periods: an unknown zone is refused with what is accepted", () => {
  assert.throws(() => timeZone("Mars/Olympus"), /give "UTC", an offset such as "\+05:30"/);
  assert.throws(() => timeZone("+25:00"), RangeError);
});
