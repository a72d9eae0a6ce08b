/** A problem doctor found before or between probes, for the person to fix. */

/** How bad a finding is: an error breaks clients, a warning may. */
export type Severity = "error" | "warning";

/** One problem, with a stable code for scripts and a message for people. */
export interface Finding {
  severity: Severity;
  code: string;
  message: string;
}
