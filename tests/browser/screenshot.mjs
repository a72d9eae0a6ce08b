/**
 * Takes the README's screenshot of the dashboard's overview (docs/dashboard.png): a real
 * `tollgate serve` over 30 days of made-up traffic (demo_data.ts), in Debian's Chromium.
 * Run here: `node screenshot.mjs [OUTPUT.png]` (after `npm ci`).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deno, launchChromium, serve, signIn } from "./tollgate.mjs";

const output = process.argv[2] ??
  new URL("../../docs/dashboard.png", import.meta.url).pathname;
const dir = await mkdtemp(join(tmpdir(), "tollgate_screenshot_"));
const configPath = join(dir, "config.toml");
await writeFile(
  configPath,
  [
    "[server]",
    'listen = "127.0.0.1:0"',
    "[database]",
    `url = "file:${join(dir, "tollgate.db")}"`,
    "[groups.default]",
    'models = ["*"]',
    "[[channels]]",
    'name = "echo"',
    'protocol = "echo"',
    'models = ["echo"]',
    "",
  ].join("\n"),
);
const adminKey = (await deno("tests/browser/demo_data.ts", configPath)).trim();
const server = await serve(configPath);
const browser = await launchChromium();
try {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    colorScheme: "light",
  });
  const page = await signIn(context, server.url, adminKey);
  await page.screenshot({ path: output, fullPage: true });
  console.log(`Wrote ${output}`);
} finally {
  await browser.close();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
