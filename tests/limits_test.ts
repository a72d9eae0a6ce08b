/** The limits cases (limits_cases.ts) on SQLite: a file of its own for each gateway. */
import { LIMITS_CASES } from "./limits_cases.ts";
import { withScope } from "./support.ts";

for (const { name, run } of LIMITS_CASES) Deno.test(name, () => withScope(run));
