/**
 * `doctor` as one flow, the spec's troubleshooting in order: check the base URL's shape and
 * the key's, list the models (401: the key; 404: the address), then ask the model for a
 * minimal answer and a stream on each entry point with each way of sending the key, and judge
 * each client kind of the spec's Base URL table from what worked.
 */
import { type BaseUrlCheck, checkBaseUrl } from "./base_url.ts";
import {
  type ClientVerdict,
  type EntryPointVerdict,
  judgeClients,
  judgeEntryPoints,
} from "./clients.ts";
import { diagnoseProbe } from "./diagnose.ts";
import { ENTRY_POINT_SHAPES, ENTRY_POINTS, field } from "./entry_points.ts";
import type { Finding } from "./finding.ts";
import { checkKey, redactKey } from "./key.ts";
import { type ProbeAnswer, type ProbeRequest, type ProbeResult, runProbe } from "./probe.ts";
import { type SupportReport, supportReport } from "./support_report.ts";

/** What to probe. */
export interface DoctorOptions {
  baseUrl: string;
  key: string;
  /** The model to probe; else the first one GET /v1/models lists. */
  model?: string;
  /** The deadline of each probe, whole answer or stream included. */
  timeoutMs: number;
}

/** What doctor runs with; tests and the CLI pass their own. */
export interface DoctorDeps {
  fetch: typeof fetch;
  now: () => number;
  /** Called with one line as each probe starts and ends, so a slow gateway shows progress. */
  progress: (line: string) => void;
}

/** Everything doctor found: the `--json` output, fields stable (added to, never renamed). */
export interface DoctorReport {
  base_url: {
    given: string;
    /** The service root the entry points were probed at; null when none could be. */
    probed_root: string | null;
    /** The corrected service root the client table's values are built on. */
    suggested_root: string | null;
    /**
     * Whether the base URL works as given: no mistake found in it and no correction needed
     * to reach the gateway. A script that checks doctor's exit status fails on a URL that
     * every client would get 404 on, even when the corrected one works.
     */
    ok: boolean;
  };
  /** The key, redacted. */
  key: string;
  model: string | null;
  model_source: "given" | "listed" | null;
  /** How many models GET /v1/models listed; null when it failed. */
  models_listed: number | null;
  findings: Finding[];
  probes: ProbeResult[];
  entry_points: EntryPointVerdict[];
  clients: ClientVerdict[];
  support_reports: SupportReport[];
  /** Whether the model works on at least one entry point. */
  works: boolean;
  summary: string;
}

// Failures of the model list after which no entry-point probe can succeed.
const STOPPING_STATUSES = [401, 403];

/** Runs every check and probe in turn; never throws for anything the gateway does. */
export async function runDoctor(options: DoctorOptions, deps: DoctorDeps): Promise<DoctorReport> {
  const key = options.key.trim();
  const baseUrl = checkBaseUrl(options.baseUrl);
  const findings: Finding[] = [...baseUrl.findings, ...checkKey(options.key)];
  const results: ProbeResult[] = [];
  const probe = async (request: Omit<ProbeRequest, "id">): Promise<ProbeAnswer> => {
    const id = results.length + 1;
    deps.progress(`[${id}] ${describeRequest(request)} …`);
    const answer = await runProbe({ ...request, id }, {
      fetch: deps.fetch,
      now: deps.now,
      key,
      timeoutMs: options.timeoutMs,
    });
    results.push(answer.result);
    const { result } = answer;
    deps.progress(
      `[${id}] ${result.ok ? "ok" : "FAILED"}: ${result.status ?? "no answer"}, ` +
        `${result.detail} (${result.duration_ms} ms)`,
    );
    return answer;
  };

  let root = baseUrl.probeRoot;
  let model = options.model ?? null;
  let modelSource: DoctorReport["model_source"] = model === null ? null : "given";
  let modelsListed: number | null = null;
  let modelsOk = false;
  if (root !== null && key !== "") {
    let listing = await probe({
      endpoint: "models",
      root,
      auth: "bearer",
      stream: false,
      model: null,
    });
    // The address as given failed; the corrected one shows whether fixing the base URL is enough.
    const suggested = baseUrl.suggestedRoot;
    if (!listing.result.ok && suggested !== null && suggested !== root) {
      const retry = await probe({
        endpoint: "models",
        root: suggested,
        auth: "bearer",
        stream: false,
        model: null,
      });
      // Any answer but a 404 means the corrected address reaches the gateway's API.
      const reached = retry.result.ok ||
        (retry.result.status !== null && retry.result.status !== 404);
      if (reached) {
        findings.push({
          severity: "warning",
          code: "probed_corrected_base_url",
          message: `${listing.result.url} failed but ${retry.result.url} answers: the probes ` +
            `below use the corrected service root ${suggested}; configure the values in the ` +
            `client table.`,
        });
        listing = retry;
        root = suggested;
      }
    }
    modelsOk = listing.result.ok;
    const ids = modelIds(listing.json);
    if (modelsOk) modelsListed = ids.length;
    if (model === null && ids[0] !== undefined) {
      model = ids[0];
      modelSource = "listed";
    } else if (model !== null && modelsOk && !ids.includes(model)) {
      findings.push(unlistedModel(model, ids));
    }
    const stop = !modelsOk && (
      STOPPING_STATUSES.includes(listing.result.status ?? 0) ||
      listing.result.outcome === "network_error"
    );
    if (model === null && modelsOk) {
      findings.push({
        severity: "error",
        code: "no_models",
        message: "GET /v1/models lists no model for this key: its group has no model with a " +
          "usable channel. Ask the operator, or pass --model to probe one anyway.",
      });
    } else if (model === null && !stop) {
      findings.push({
        severity: "error",
        code: "no_model_to_probe",
        message: "No model to probe: GET /v1/models failed. Pass --model to probe one anyway.",
      });
    }
    if (model !== null && !stop) {
      for (const entryPoint of ENTRY_POINTS) {
        for (const auth of ENTRY_POINT_SHAPES[entryPoint].auths) {
          for (const stream of [false, true]) {
            await probe({ endpoint: entryPoint, root, auth, stream, model });
          }
        }
      }
    }
  }

  const probes = results.map((result) => ({
    ...result,
    diagnosis: diagnoseProbe(result, { baseUrl, modelsOk, results, timeoutMs: options.timeoutMs }),
  }));
  const redactedKey = redactKey(key);
  const entryPoints = judgeEntryPoints(probes);
  const works = entryPoints.some((verdict) => verdict.works);
  const clientRoot = baseUrl.suggestedRoot ?? root;
  const baseUrlOk = root !== null && root === baseUrl.probeRoot &&
    !baseUrl.findings.some((finding) => finding.severity === "error");
  return {
    base_url: {
      given: options.baseUrl,
      probed_root: root,
      suggested_root: baseUrl.suggestedRoot,
      ok: baseUrlOk,
    },
    key: redactedKey,
    model,
    model_source: modelSource,
    models_listed: modelsListed,
    findings,
    probes,
    entry_points: entryPoints,
    clients: clientRoot === null ? [] : judgeClients(clientRoot, probes),
    support_reports: probes.filter((result) => !result.ok).map((result) =>
      supportReport(result, redactedKey)
    ),
    works,
    summary:
      (works && !baseUrlOk
        ? `The base URL "${options.baseUrl}" is wrong (see the findings): configure the ` +
          `client table's values instead. At ${root}: `
        : "") + summarize(model, entryPoints, probes, baseUrl),
  };
}

/** The ids of a model list, in its order. */
function modelIds(json: unknown): string[] {
  const data = field(json, "data");
  if (!Array.isArray(data)) return [];
  return data.map((record) => field(record, "id")).filter((id) => typeof id === "string");
}

function unlistedModel(model: string, ids: readonly string[]): Finding {
  const near = ids.find((id) => id.toLowerCase() === model.toLowerCase());
  return {
    severity: "warning",
    code: "model_not_listed",
    message: `"${model}" is not among the ${ids.length} models GET /v1/models lists for this ` +
      `key, so requests for it most likely fail (often 503 model_not_found)${
        near ? `; ids match exactly: did you mean "${near}"?` : "."
      }`,
  };
}

function describeRequest(request: Omit<ProbeRequest, "id">): string {
  const path = request.endpoint === "models"
    ? "GET /v1/models"
    : `POST ${ENTRY_POINT_SHAPES[request.endpoint].path}`;
  const how = [request.auth === "bearer" ? "Bearer" : "x-api-key"];
  if (request.endpoint !== "models") how.push(request.stream ? "stream" : "whole answer");
  return `${path} at ${request.root} (${how.join(", ")})`;
}

function summarize(
  model: string | null,
  entryPoints: readonly EntryPointVerdict[],
  probes: readonly ProbeResult[],
  baseUrl: BaseUrlCheck,
): string {
  if (baseUrl.probeRoot === null) return "The base URL cannot be used: nothing was probed.";
  const listing = probes.findLast((probe) => probe.endpoint === "models");
  if (listing === undefined) return "The key cannot be used: nothing was probed.";
  if (model === null) {
    return listing.ok ? "No model to probe: GET /v1/models lists none." : listing.diagnosis;
  }
  const working = entryPoints.filter((verdict) => verdict.works).map((verdict) => verdict.path);
  if (working.length === 0) {
    const entryProbes = probes.filter((probe) => probe.endpoint !== "models");
    const reason = entryProbes.length === 0 ? ` ${listing.diagnosis}` : "";
    return `"${model}" works on no entry point.${reason}`;
  }
  return `"${model}" works on ${working.join(", ")} (${working.length} of ${entryPoints.length} ` +
    `entry points).`;
}
