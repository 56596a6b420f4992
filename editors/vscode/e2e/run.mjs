#!/usr/bin/env node
// End-to-end test of the VS Code extension in a real VS Code: code-server
// with the VSIX installed through --install-extension, driven by
// playwright-core with Debian's chromium. Scenario: open a workspace, send a
// prompt in the Hermes chat, the scripted model (test/fixtures/
// broken-config.yaml) writes a broken config.json, the diff opens, Accept is
// clicked in the editor title, the file changes on disk, and the Problems
// panel lists the error. Screenshots are kept in OUT (argument 3).
//
// Usage: node e2e/run.mjs VSIX HERMES_ACP_BIN OUT_DIR
// Environment: CODE_SERVER (the code-server executable), CHROMIUM
// (default /usr/bin/chromium). code-server needs Node 24 first on PATH.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const [vsix, bin, out] = process.argv.slice(2).map((p) => p && resolve(p));
if (!vsix || !bin || !out) {
  console.error("usage: node e2e/run.mjs VSIX HERMES_ACP_BIN OUT_DIR");
  process.exit(2);
}
const codeServer = process.env.CODE_SERVER || "code-server";
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const script = resolve(here, "../test/fixtures/broken-config.yaml");
const original = '{\n  "name": "demo",\n  "tags": ["stable"]\n}\n';
const broken = '{\n  "name": "demo",\n  "tags": ["stable", "beta",]\n}\n';
const step = 180_000; // bound on each wait: the machine may be busy

const T = mkdtempSync(join(tmpdir(), "hermes-e2e-"));
const ws = join(T, "workspace");
const ud = join(T, "user-data");
const ext = join(T, "extensions");
const home = join(T, "home");
for (const d of [ws, join(ud, "User"), ext, home]) mkdirSync(d, { recursive: true });
writeFileSync(join(ws, "config.json"), original);
writeFileSync(
  join(ud, "User", "settings.json"),
  JSON.stringify(
    {
      "hermes.path": bin,
      "hermes.args": ["--model", "script:" + script],
      "hermes.env": { HERMES_HOME: join(T, "hermes-home") },
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.welcomePage.walkthroughs.openOnInstall": false,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "extensions.autoCheckUpdates": false,
      "extensions.autoUpdate": false,
      "chat.disableAIFeatures": true,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
      "git.enabled": false,
    },
    null,
    2,
  ),
);

const env = { ...process.env, HOME: home };
let server;
let browser;
let failed = false;
const t0 = Date.now();
const log = (s) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on("error", rej);
  });
}

async function waitFor(what, fn, timeout = step) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? ": " + last.message : ""}`);
}

async function command(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: step });
  await input.fill(">" + title);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: step });
  await page.keyboard.press("Enter");
}

/** chatFrame finds the frame of the Hermes chat webview (it holds #prompt). */
async function chatFrame(page) {
  return waitFor("the Hermes chat webview", async () => {
    for (const f of page.frames()) {
      if (await f.$("#prompt").catch(() => null)) return f;
    }
    return null;
  });
}

try {
  log(`installing ${vsix}`);
  const inst = spawnSync(codeServer, ["--user-data-dir", ud, "--extensions-dir", ext, "--install-extension", vsix], { env, encoding: "utf8" });
  if (inst.status !== 0) throw new Error(`code-server --install-extension failed (${inst.status}):\n${inst.stdout}\n${inst.stderr}`);
  if (!/hermes-acp/.test(inst.stdout + inst.stderr)) throw new Error(`--install-extension did not mention the extension:\n${inst.stdout}`);

  const port = await freePort();
  log(`starting code-server on 127.0.0.1:${port}`);
  server = spawn(
    codeServer,
    ["--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--user-data-dir", ud, "--extensions-dir", ext, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", ws],
    { env, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let serverLog = "";
  server.stdout.on("data", (b) => (serverLog += b));
  server.stderr.on("data", (b) => (serverLog += b));
  await waitFor("code-server to listen", () => serverLog.includes("HTTP server listening"));

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(step);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: step });
  log("workbench loaded");

  // The Hermes view container in the activity bar.
  await page.locator('.activitybar [aria-label^="Hermes"]').first().click();
  const chat = await chatFrame(page);
  log("chat view open");
  // The status bar says the agent is ready once hermes-acp answered initialize.
  await page.locator(".statusbar-item", { hasText: "Hermes: ready" }).first().waitFor({ timeout: step });

  await chat.locator("#prompt").fill("Add the beta tag to config.json");
  await chat.locator("#prompt").press("Enter");
  log("prompt sent");

  // The diff editor opens with Accept and Reject in its title, and a notification.
  const accept = page.locator('.editor-actions .action-label[aria-label*="Accept Edit"]').first();
  await accept.waitFor({ state: "visible", timeout: step });
  await page.locator(".tab", { hasText: "config.json: current ↔ proposed" }).first().waitFor({ timeout: step });
  await page.locator(".notification-toast", { hasText: "Hermes wants to edit config.json" }).first().waitFor({ timeout: step });
  await page.locator(".editor-actions .action-label[aria-label*='Reject Edit']").first().waitFor({ state: "visible" });
  if (readFileSync(join(ws, "config.json"), "utf8") !== original) throw new Error("config.json changed before Accept");
  mkdirSync(out, { recursive: true });
  await page.screenshot({ path: join(out, "vscode-diff.png") });
  log("diff open; clicking Accept");
  await accept.click();

  await waitFor("config.json to change on disk", () => readFileSync(join(ws, "config.json"), "utf8") === broken);
  log("config.json written");
  await command(page, "Focus on Problems View");
  const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "hermes-lint" }).first();
  await problem.waitFor({ timeout: step });
  const problems = await page.locator(".markers-panel").innerText();
  if (!/config\.json/.test(problems)) throw new Error(`the Problems panel does not name config.json:\n${problems}`);
  // The chat shows the agent's answer after the tool result.
  await chat.locator(".msg.agent", { hasText: "now lists the beta tag" }).first().waitFor({ timeout: step });
  await chat.locator(".tool.status-completed").first().waitFor({ timeout: step });
  await page.screenshot({ path: join(out, "vscode-e2e.png") });
  log(`OK: the Problems panel lists: ${problems.replace(/\s+/g, " ").slice(0, 200)}`);
  log(`screenshots in ${out}`);
} catch (err) {
  failed = true;
  console.error(`[e2e] FAILED: ${err.stack || err}`);
  try {
    const pages = browser?.contexts()[0]?.pages() ?? [];
    if (pages[0]) {
      mkdirSync(out, { recursive: true });
      await pages[0].screenshot({ path: join(out, "vscode-e2e-failure.png") });
      console.error(`[e2e] screenshot of the failure: ${join(out, "vscode-e2e-failure.png")}`);
    }
  } catch {}
  const logs = join(ud, "logs");
  if (existsSync(logs)) {
    const r = spawnSync("sh", ["-c", `find '${logs}' -name '*Hermes*' -o -name 'exthost.log' | head -5 | xargs -r tail -n 40`], { encoding: "utf8" });
    console.error(r.stdout);
  }
} finally {
  await browser?.close().catch(() => {});
  if (server) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {}
  }
  rmSync(T, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
