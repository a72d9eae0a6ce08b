/**
 * `tollgate doctor`: the spec's troubleshooting as one command, against any gateway that
 * claims these protocols. Progress goes to stderr while it probes; the report to stdout.
 */
import { formatSupportReport } from "../doctor/support_report.ts";
import type { DoctorReport } from "../doctor/run_doctor.ts";
import { type Command, type Flags, type ParsedCommand, single, subcommand } from "./command.ts";
import type { CliContext } from "./context.ts";
import { formatTable, printJson, usageError } from "./output.ts";

// Long enough for a slow model's first 16 tokens, short enough that a hung stream is noticed.
const DEFAULT_TIMEOUT_MS = 30_000;
// An hour: longer than any probe should take, and well inside what a timer can hold.
const MAX_TIMEOUT_MS = 3_600_000;

const DOCTOR_FLAGS = {
  "base-url": {
    type: "string",
    value: "URL",
    help: "the base URL a client would be given (required)",
  },
  key: {
    type: "string",
    value: "KEY",
    help: "the API key to probe with (required; never printed)",
  },
  model: { type: "string", value: "M", help: "the model to probe (default: the first one listed)" },
  json: { type: "boolean", help: "print the report as JSON" },
  "timeout-ms": {
    type: "string",
    value: "N",
    help: `the deadline of each probe (default ${DEFAULT_TIMEOUT_MS})`,
  },
} as const satisfies Flags;

const doctor = subcommand({
  usage: "tollgate doctor --base-url URL --key KEY [--model M] [--json] [--timeout-ms N]",
  summary: "Probes any compatible gateway as the spec's troubleshooting does; exits 1 when " +
    "the model works nowhere, or when the base URL as given is wrong (even if a corrected " +
    "one works). Reads no config.",
  flags: DOCTOR_FLAGS,
  run: runDoctorCommand,
});

/** The `doctor` command. */
export const DOCTOR_COMMAND: Command = single(doctor);

/**
 * Runs `doctor ...`; returns 0 when the model works on at least one entry point at the base
 * URL as given, else 1.
 */
async function runDoctorCommand(
  { values }: ParsedCommand<typeof DOCTOR_FLAGS>,
  ctx: CliContext,
): Promise<number> {
  const usage = doctor.usage;
  const baseUrl = values["base-url"];
  if (baseUrl === undefined) throw usageError("Missing --base-url", usage);
  if (values.key === undefined) throw usageError("Missing --key", usage);
  if (values.model !== undefined && values.model.trim() === "") {
    throw usageError("Invalid --model: give a model id", usage);
  }
  const timeoutText = values["timeout-ms"];
  const timeoutMs = timeoutText === undefined ? DEFAULT_TIMEOUT_MS : Number(timeoutText);
  if (!/^\d+$/.test(timeoutText ?? "0") || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw usageError(
      `Invalid --timeout-ms "${timeoutText}": give a whole number of milliseconds from 1 to ` +
        `${MAX_TIMEOUT_MS}`,
      usage,
    );
  }
  // The probes load when the command runs: `tollgate serve` never loads them.
  const { runDoctor } = await import("../doctor/run_doctor.ts");
  const report = await runDoctor(
    { baseUrl, key: values.key, model: values.model, timeoutMs },
    {
      fetch,
      now: ctx.now,
      progress: (line) => ctx.io.stderr(`doctor: ${line}`),
    },
  );
  if (values.json) printJson(ctx.io, report);
  else ctx.io.stdout(formatReport(report));
  return usable(report) ? 0 : 1;
}

/** Whether the gateway works at the base URL as given: exit 0 only then. */
function usable(report: DoctorReport): boolean {
  return report.works && report.base_url.ok;
}

/** The report as text: header, findings, probes, diagnoses, client table, support reports. */
function formatReport(report: DoctorReport): string {
  const model = `${report.model ?? "-"}${report.model_source ? ` (${report.model_source})` : ""}`;
  const sections = [[
    `Base URL  ${report.base_url.given}`,
    `Probed    ${report.base_url.probed_root ?? "-"}`,
    `Key       ${report.key}`,
    `Model     ${model}`,
  ].join("\n")];
  if (report.findings.length > 0) {
    sections.push(list("Findings", report.findings.map((f) => `${f.severity}: ${f.message}`)));
  }
  if (report.probes.length > 0) {
    sections.push(formatTable(
      ["#", "REQUEST", "KEY AS", "STREAM", "STATUS", "RESULT", "REQUEST ID"],
      report.probes.map((probe) => [
        String(probe.id),
        `${probe.method} ${new URL(probe.url).pathname}`,
        probe.auth === "bearer" ? "Bearer" : "x-api-key",
        probe.endpoint === "models" ? "-" : probe.stream ? "yes" : "no",
        probe.status === null ? "-" : String(probe.status),
        clip(`${probe.ok ? "ok" : "FAILED"}: ${probe.detail}`),
        probe.request_id ?? "-",
      ]),
      ["right"],
    ));
  }
  const failed = report.probes.filter((probe) => !probe.ok);
  if (failed.length > 0) {
    sections.push(list("Diagnosis", failed.map((probe) => `#${probe.id}: ${probe.diagnosis}`)));
  }
  if (report.probes.some((probe) => probe.endpoint !== "models")) {
    sections.push(formatTable(
      ["CLIENT KIND", "WORKS", "CONFIGURE BASE URL", "APPENDS", "NOTE"],
      report.clients.map((client) => [
        client.label,
        client.works ? "yes" : "NO",
        client.base_url,
        client.appends,
        [
          client.note,
          client.failed_probes.length > 0
            ? `failed: ${client.failed_probes.map((id) => `#${id}`).join(" ")}`
            : "",
        ].filter(Boolean).join("; "),
      ]),
    ));
  }
  if (report.support_reports.length > 0) {
    sections.push([
      "Support reports (send these to the gateway's operator; the key is redacted)",
      ...report.support_reports.map((support) =>
        `\n#${support.probe}\n${indent(formatSupportReport(support))}`
      ),
    ].join("\n"));
  }
  const verdict = usable(report) ? "OK" : report.works ? "WRONG BASE URL" : "NOT WORKING";
  sections.push(`${verdict}: ${report.summary}`);
  return sections.join("\n\n");
}

// The table stays readable in a terminal; the diagnosis and support reports carry it whole.
function clip(text: string, width = 72): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

function list(title: string, items: readonly string[]): string {
  return [title, ...items.map((item) => `  ${item}`)].join("\n");
}

function indent(text: string): string {
  return text.split("\n").map((line) => `  ${line}`).join("\n");
}
