/** The accounting cases (accounting_cases.ts) on a SQLite file, one test each. */
import { ACCOUNTING_CASES } from "./accounting_cases.ts";

for (const { name, run } of ACCOUNTING_CASES) {
  Deno.test(name, () => run(() => Promise.resolve(undefined)));
}
