/**
 * What the browser scripts share: a real `tollgate` run with deno from the checkout (a server
 * or a command), and Debian's Chromium launched as this offline machine needs it.
 */
import { execFile, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";

// Required rather than imported: `deno check tests` reads this folder too, and would look
// for the package among the project's own dependencies; Node finds it in ./node_modules.
const { chromium } = createRequire(import.meta.url)("playwright-core");

const ROOT = new URL("../../", import.meta.url).pathname;
/** The deno command (`.ci/run` may name `npx -y deno@2`). */
const DENO = (process.env.TOLLGATE_DENO ?? "deno").split(" ");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
/** Without the background-networking flags Chromium keeps calling hosts this machine cannot reach. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A group of every model and the echo channel serving `echo`: config lines for writeConfig. */
export const ECHO_CONFIG = [
  "[groups.default]",
  'models = ["*"]',
  "[[channels]]",
  'name = "echo"',
  'protocol = "echo"',
  'models = ["echo"]',
];

/**
 * Writes `config.toml` into `dir`: listening on 127.0.0.1 (a free port) with `server` lines
 * more, its database beside it, then `lines` (groups, models, channels). Returns its path.
 */
export async function writeConfig(dir, lines, server = []) {
  const path = join(dir, "config.toml");
  const head = ["[server]", 'listen = "127.0.0.1:0"', ...server, "[database]"];
  await writeFile(
    path,
    [...head, `url = "file:${join(dir, "tollgate.db")}"`, ...lines, ""].join(
      "\n",
    ),
  );
  return path;
}

/** Chromium, headless, with a fresh profile of its own (playwright makes one per launch). */
export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Runs `deno run -A ... SCRIPT ARGS` from the checkout's root; its stdout. */
export async function deno(script, ...args) {
  const [command, ...prefix] = DENO;
  const { stdout } = await promisify(execFile)(
    command,
    [...prefix, "run", "-A", "--unstable-no-legacy-abort", script, ...args],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } },
  );
  return stdout;
}

/** Runs `tollgate ARGS --config CONFIG`; its stdout. */
export function tollgate(configPath, ...args) {
  return deno("main.ts", ...args, "--config", configPath);
}

/**
 * Starts `tollgate serve --config CONFIG`; resolves once it listens (and, on a fresh
 * database, has printed its first-run key), with its URL, that key and `stop()`.
 */
export function serve(configPath, { firstRun = false } = {}) {
  const [command, ...prefix] = DENO;
  const args = ["run", "-A", "--unstable-no-legacy-abort", "main.ts", "serve"];
  const child = spawn(command, [...prefix, ...args, "--config", configPath], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = "";
    exited.then((code) => reject(new Error(`tollgate exited (${code}): ${output}`)));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      output += text;
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      const key = /^\s+(sk-[0-9A-Za-z]+)$/m.exec(output);
      if (listening && (key || !firstRun)) {
        resolve({ url: listening[1], key: key?.[1], stop });
      }
    });
  });
}

/** Signs in on a new page of a browser context with `key`; the page, on the dashboard. */
export async function signIn(context, url, key) {
  const page = await context.newPage();
  await page.goto(`${url}/admin`);
  await page.getByLabel("API key").fill(key);
  await Promise.all([
    page.waitForURL(`${url}/admin`),
    page.getByRole("button", { name: "Sign in" }).click(),
  ]);
  return page;
}
