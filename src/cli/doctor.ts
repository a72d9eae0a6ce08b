/**
 * `tollgate doctor`: the spec's troubleshooting as one command, against any gateway that
 * claims these protocols. Progress goes to stderr while it probes; the report to stdout.
 */
import { formatSupportReport } from "../doctor/support_report.ts";
import { type DoctorReport, runDoctor } from "../doctor/run_doctor.ts";
import { type CliContext, CONFIG_OPTION, expectPositionals, parseCommandArgs } from "./context.ts";
import { formatTable, printJson, usageError } from "./output.ts";

/** Usage lines of the `doctor` command. */
export const DOCTOR_USAGE =
  "tollgate doctor --base-url URL --key KEY [--model M] [--json] [--timeout-ms N]\n" +
  "                probe any compatible gateway as the spec's troubleshooting does; " +
  "exit 1 when unusable";

// Long enough for a slow model's first 16 tokens, short enough that a hung stream is noticed.
const DEFAULT_TIMEOUT_MS = 30_000;
// An hour: longer than any probe should take, and well inside what a timer can hold.
const MAX_TIMEOUT_MS = 3_600_000;

/** Runs `doctor ...`; returns 0 when the model works on at least one entry point, else 1. */
export async function runDoctorCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    // Accepted so that every command takes --config, as the help says; doctor reads no config.
    ...CONFIG_OPTION,
    "base-url": { type: "string" },
    key: { type: "string" },
    model: { type: "string" },
    json: { type: "boolean" },
    "timeout-ms": { type: "string" },
  } as const;
  const { values, positionals } = parseCommandArgs(args, options, DOCTOR_USAGE);
  expectPositionals(positionals, [], DOCTOR_USAGE);
  const baseUrl = values["base-url"];
  if (baseUrl === undefined) throw usageError("Missing --base-url", DOCTOR_USAGE);
  if (values.key === undefined) throw usageError("Missing --key", DOCTOR_USAGE);
  if (values.model !== undefined && values.model.trim() === "") {
    throw usageError("Invalid --model: give a model id", DOCTOR_USAGE);
  }
  const timeoutText = values["timeout-ms"];
  const timeoutMs = timeoutText === undefined ? DEFAULT_TIMEOUT_MS : Number(timeoutText);
  if (!/^\d+$/.test(timeoutText ?? "0") || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw usageError(
      `Invalid --timeout-ms "${timeoutText}": give a whole number of milliseconds from 1 to ` +
        `${MAX_TIMEOUT_MS}`,
      DOCTOR_USAGE,
    );
  }
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
  return report.works ? 0 : 1;
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
  sections.push(`${report.works ? "OK" : "NOT WORKING"}: ${report.summary}`);
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
