import type { Usage } from "../usage.ts";
/** How a relayed request ended, as settlement and the access log need it. */

/** The end of one relayed request. */
export interface RelayOutcome {
  /** `ok`, `failed` (upstream error or broken stream) or `aborted` (the client went away). */
  status: "ok" | "failed" | "aborted";
  reason?: string;
}

/** What an attempt delivered to the client, to bill it by. */
export interface Delivered {
  /** How the attempt's part of the answer ended. */
  status: RelayOutcome["status"];
  /** Its upstream's own usage report, if it sent one. */
  usage?: Usage;
  /** Text it produced, for estimating usage when it reported none (built on demand). */
  outputText: () => string;
}
