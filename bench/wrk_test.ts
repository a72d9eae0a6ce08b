import assert from "node:assert/strict";
import { luaString, parseWrk, wrkScript } from "./wrk.ts";

// Reports as wrk 4.1 (Debian's) printed them against tollgate on this machine.
const ANSWERED = `Running 1s test @ http://127.0.0.1:40235/v1/chat/completions
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.95ms    3.96ms  38.23ms   95.54%
    Req/Sec     3.36k     1.44k    5.29k    70.00%
  Latency Distribution
     50%    0.88ms
     75%    1.60ms
     90%    3.23ms
     99%   26.25ms
  3337 requests in 1.00s, 1.65MB read
Requests/sec:   3335.35
Transfer/sec:      1.65MB
`;
const REFUSED = `Running 1s test @ http://127.0.0.1:40235/v1/chat/completions
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   728.75us  818.03us  11.80ms   94.13%
    Req/Sec     4.89k   353.00     5.67k    80.00%
  Latency Distribution
     50%  564.00us
     75%  687.00us
     90%    0.98ms
     99%    3.88ms
  4859 requests in 1.00s, 2.03MB read
  Non-2xx or 3xx responses: 4859
Requests/sec:   4854.87
Transfer/sec:      2.03MB
`;

Deno.test("wrk: a report reads as the fetch loop's result, latencies in milliseconds", () => {
  assert.deepEqual(parseWrk(ANSWERED), {
    requests: 3337,
    errors: 0,
    firstError: undefined,
    seconds: 1,
    requestsPerSecond: 3337,
    latency: { p50: 0.88, p99: 26.25, mean: 1.95 },
  });
});

Deno.test("wrk: answers other than 2xx are errors, not requests", () => {
  const result = parseWrk(REFUSED);
  assert.equal(result.requests, 0);
  assert.equal(result.errors, 4859);
  assert.equal(result.firstError, "4859 answers were not 2xx");
  assert.equal(result.latency.p50, 0.564);
});

Deno.test("wrk: socket errors count as errors and are named", () => {
  const report = ANSWERED.replace(
    "Requests/sec",
    "  Socket errors: connect 0, read 2, write 0, timeout 3\nRequests/sec",
  );
  const result = parseWrk(report);
  assert.equal(result.requests, 3337);
  assert.equal(result.errors, 5);
  assert.match(result.firstError!, /read 2, write 0, timeout 3/);
});

Deno.test("wrk: a report without the latency distribution is refused, not read as zero", () => {
  const bare = ANSWERED.replace(/ {2}Latency Distribution[\s\S]*?99%.*\n/, "");
  assert.throws(() => parseWrk(bare), /--latency/);
});

Deno.test("wrk: the script's strings escape every byte Lua could misread", () => {
  // Three-digit escapes: "\n5" must not read as "\105" ("i").
  assert.equal(luaString('a"b\\c\n5'), '"a\\034b\\092c\\0105"');
  assert.equal(luaString("é"), '"\\195\\169"');
  assert.equal(
    wrkScript({ headers: { authorization: "Bearer sk-1" }, body: '{"a":1}' }),
    'wrk.method = "POST"\nwrk.body = "{\\034a\\034:1}"\nwrk.headers["authorization"] = "Bearer sk-1"\n',
  );
});
