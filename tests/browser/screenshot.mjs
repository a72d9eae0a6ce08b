/**
 * Takes the README's screenshot of the dashboard's overview (docs/dashboard.png): a real
 * `tollgate serve` over 30 days of made-up traffic (demo_data.ts), in Debian's Chromium.
 * Run here: `node screenshot.mjs [OUTPUT.png]` (after `npm ci`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deno, ECHO_CONFIG, launchChromium, serve, signIn, writeConfig } from "./tollgate.mjs";

const output = process.argv[2] ??
  new URL("../../docs/dashboard.png", import.meta.url).pathname;
const dir = await mkdtemp(join(tmpdir(), "tollgate_screenshot_"));
const configPath = await writeConfig(dir, ECHO_CONFIG);
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
