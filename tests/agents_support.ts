/**
 * Coding agents as test clients: Codex CLI and Claude Code, installed from the npm
 * registry into a git-ignored cache on first use, run one-shot against a gateway with
 * update checks and telemetry off.
 */
import { fileURLToPath } from "node:url";

/** The agent versions the tests pin (their request shapes change between releases). */
const PACKAGES = ["@openai/codex@0.169.0", "@anthropic-ai/claude-code@2.1.330"];
const CACHE = fileURLToPath(new URL("../.cache/agents/", import.meta.url));

/** What an agent run printed and how it ended. */
export interface AgentRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Installs the pinned agents into `.cache/agents` unless they are there; returns their bin dir. */
export async function installAgents(): Promise<string> {
  const bin = `${CACHE}node_modules/.bin`;
  const stamp = `${CACHE}installed-${PACKAGES.join("+").replaceAll("/", "_")}`;
  try {
    await Deno.stat(stamp);
    return bin;
  } catch {
    // not installed yet
  }
  await Deno.mkdir(CACHE, { recursive: true });
  const npm = new Deno.Command("npm", {
    args: ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", CACHE, ...PACKAGES],
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stderr } = await npm.output();
  if (code !== 0) {
    throw new Error(
      `npm install ${PACKAGES.join(" ")} failed:\n${new TextDecoder().decode(stderr)}`,
    );
  }
  await Deno.writeTextFile(stamp, new Date().toISOString());
  return bin;
}

/** Runs a command to its end (bounded, so a hung agent fails the test instead of CI). */
async function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<AgentRun> {
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(180_000),
  });
  const { code, stdout, stderr } = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}

/** The environment every agent gets: a private home, PATH, and no network chatter. */
function baseEnv(home: string): Record<string, string> {
  return { HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", TERM: "dumb", NO_COLOR: "1" };
}

/** Runs `codex exec` on `prompt` against a responses base URL (`…/v1`). */
export async function runCodex(
  bin: string,
  work: string,
  gateway: { baseUrl: string; key: string; model: string },
  prompt: string,
): Promise<AgentRun> {
  const provider = `{name="tollgate",base_url="${gateway.baseUrl}",env_key="TOLLGATE_KEY",` +
    `wire_api="responses"}`;
  await Deno.mkdir(`${work}/.codex`, { recursive: true });
  return await run(`${bin}/codex`, [
    "exec",
    "--skip-git-repo-check",
    "--sandbox",
    "danger-full-access",
    "-c",
    "model_provider=tollgate",
    "-c",
    `model_providers.tollgate=${provider}`,
    "-c",
    "check_for_update_on_startup=false",
    "-c",
    "analytics.enabled=false",
    "-m",
    gateway.model,
    prompt,
  ], {
    cwd: work,
    env: { ...baseEnv(work), CODEX_HOME: `${work}/.codex`, TOLLGATE_KEY: gateway.key },
  });
}

/** Runs `claude -p` on `prompt` against a messages base URL (the server root). */
export function runClaudeCode(
  bin: string,
  work: string,
  gateway: { url: string; key: string; model: string },
  prompt: string,
): Promise<AgentRun> {
  return run(`${bin}/claude`, [
    "-p",
    prompt,
    "--model",
    gateway.model,
    "--allowedTools",
    "Bash",
  ], {
    cwd: work,
    env: {
      ...baseEnv(work),
      ANTHROPIC_BASE_URL: gateway.url,
      ANTHROPIC_API_KEY: gateway.key,
      // Claude Code's documented switches for offline use.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
    },
  });
}
