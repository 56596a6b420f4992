#!/usr/bin/env node
// End-to-end test of the VS Code extension in a real VS Code: code-server
// with the VSIX installed through --install-extension, driven by
// playwright-core with Debian's chromium, against the real hermes-acp with
// a scripted model. Screenshots of every scenario are kept in OUT_DIR.
//
// Scenarios, in one window (a two-folder workspace):
//   1. lazy activation: no hermes-acp runs until the Hermes view is opened;
//   2. first run without a model: the chat's empty state explains it and
//      "Configure model" runs `hermes-acp --setup` in a VS Code terminal,
//      answered by typing; the chat reconnects and shows the model;
//   3. a prompt with a file attached by @ completion, one dropped on the
//      chat, and the editor's selection; the agent reads a file of the
//      second workspace folder (additionalDirectories);
//   4. a dangerous command approved from the chat card, whose buttons carry
//      the agent's full option labels, still waiting after the agent's
//      default approval timeout;
//   5. an edit accepted with ✓ in the diff editor: the card and the
//      notification follow; the Problems panel lists the lint error;
//   6. "Restart the Agent", then a prompt that works; a killed agent, then
//      a prompt that works;
//   7. History with relative times; the loaded session looks like the live
//      one (same messages and cards, in order);
//   8. Escape cancelling a running turn.
//
// Usage: node e2e/run.mjs VSIX HERMES_ACP_BIN OUT_DIR
// Environment: CODE_SERVER (the code-server executable), CHROMIUM
// (default /usr/bin/chromium). code-server needs Node 24 first on PATH.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";

const [vsix, bin, out] = process.argv.slice(2).map((p) => p && resolve(p));
if (!vsix || !bin || !out) {
  console.error("usage: node e2e/run.mjs VSIX HERMES_ACP_BIN OUT_DIR");
  process.exit(2);
}
const codeServer = process.env.CODE_SERVER || "code-server";
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const original = '{\n  "name": "demo",\n  "tags": ["stable"]\n}\n';
const broken = '{\n  "name": "demo",\n  "tags": ["stable", "beta",]\n}\n';
const step = 180_000; // bound on each wait: the machine may be busy
/** hermes-acp's default approvals.timeout; an approval must outlive it. */
const agentDefaultApprovalTimeout = 60_000;

const T = mkdtempSync(join(tmpdir(), "hermes-e2e-"));
const ws = join(T, "workspace");
const second = join(T, "second");
const ud = join(T, "user-data");
const ext = join(T, "extensions");
const home = join(T, "home");
const hermesHome = join(T, "hermes-home");
for (const d of [ws, join(ws, "src"), join(ws, "build"), second, join(ud, "User"), ext, home]) mkdirSync(d, { recursive: true });
writeFileSync(join(ws, "config.json"), original);
writeFileSync(join(ws, "src", "app.ts"), 'export function greet(name: string): string {\n  const greeting = "Hello, " + name;\n  return greeting + "!";\n}\n');
writeFileSync(join(ws, "notes.md"), "# Notes\n\nRemember the beta tag.\n");
writeFileSync(join(ws, "build", "out.o"), "object\n");
writeFileSync(join(second, "shared.txt"), "shared between both folders\n");
const workspaceFile = join(T, "demo.code-workspace");
writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: ws }, { path: second }] }, null, 2));

// The scripted model: one conversation per scenario, chosen by the first prompt.
const script = join(T, "script.yaml");
const y = (s) => JSON.stringify(s);
writeFileSync(
  script,
  `replies:
  - text: "This conversation has no script."
conversations:
  - match: {contains: "Explain this"}
    replies:
      - expect: {role: user, matches: ${y("(?s)\\[Attached file: config\\.json\\].*\\[Attached file: notes\\.md\\].*app\\.ts#L2-L3")}}
        text: ${y("Here is what the selection does:\n\n| name | meaning |\n|---|---|\n| `greeting` | the text built from `name` |\n| `$HERMES_HOME` | where hermes keeps its files |\n\n```ts\nconst greeting = \"Hello, \" + name;\n```\n\nLet me look at the other folder too.")}
        tool_calls:
          - name: read_file
            arguments: {path: ${y(join(second, "shared.txt"))}}
      - expect: {role: tool, contains: "shared between both folders"}
        text: "The second folder is in reach too."
  - match: {contains: "Clean the build folder"}
    replies:
      - text: "I will remove the build folder."
        tool_calls:
          - name: terminal
            arguments: {command: "rm -rf build"}
      - expect: {role: tool}
        text: "Done. The \`build\` folder is **gone**."
  - match: {contains: "Add the beta tag"}
    replies:
      - thought: "The user wants a tag added to config.json."
        text: "I will add the **beta** tag to \`config.json\`."
        tool_calls:
          - name: write_file
            arguments: {path: config.json, content: ${y(broken)}}
      - expect: {role: tool, contains: "config.json"}
        text: "Done: \`config.json\` now lists the beta tag."
      - expect: {role: user, contains: "Still there?"}
        text: "Yes: this session survived the restart."
      - expect: {role: user, contains: "And after a crash?"}
        text: "Still here after the crash."
  - match: {contains: "Run the slow job"}
    replies:
      - text: "Starting the slow job."
        tool_calls:
          - name: terminal
            arguments: {command: "sleep 117"}
`,
);

const settingsFile = join(ud, "User", "settings.json");
function settingsText(hermesArgs) {
  return JSON.stringify(
      {
        "hermes.path": bin,
        "hermes.args": hermesArgs,
        "hermes.env": { HERMES_HOME: hermesHome },
        "security.workspace.trust.enabled": false,
        "workbench.startupEditor": "none",
        // Editors in the editor area, not as modal overlays (code-server
        // 4.139's default for settings), which take the keyboard from F1.
        "workbench.editor.useModal": "off",
        "workbench.tips.enabled": false,
        "workbench.welcomePage.walkthroughs.openOnInstall": false,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "chat.disableAIFeatures": true,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
        "git.enabled": false,
        "terminal.integrated.enablePersistentSessions": false,
        // The DOM renderer, so that the test can read the terminal's text.
        "terminal.integrated.gpuAcceleration": "off",
      },
      null,
      2,
    );
}
writeFileSync(settingsFile, settingsText([])); // first run: no model

const env = { ...process.env, HOME: home };
let server;
let browser;
let page;
let chat;
let failed = false;
const t0 = Date.now();
const log = (s) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.endsWith(".png")) rmSync(join(out, f));

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

function check(cond, what) {
  if (!cond) throw new Error(what);
}

/** agentProcesses lists the pids of hermes-acp serving ACP (not its sandboxed children). */
function agentProcesses() {
  const pids = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").filter(Boolean);
      let exe = "";
      try {
        exe = readlinkSync(`/proc/${p}/exe`);
      } catch {
        // a process that is gone or not ours
      }
      if ((exe === bin || argv[0] === bin) && !argv.includes("sandbox-exec") && !argv.includes("--version") && !argv.includes("--setup")) pids.push(Number(p));
    } catch {
      // gone
    }
  }
  return pids;
}

/** commandProcesses lists the pids of processes whose command line is exactly argv joined by spaces. */
function commandProcesses(cmdline) {
  const pids = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") === cmdline) pids.push(Number(p));
    } catch {
      // gone
    }
  }
  return pids;
}

async function shot(name, clipSidebar = false) {
  const path = join(out, name);
  if (clipSidebar) {
    const box = await page.locator(".part.sidebar").boundingBox();
    if (box) {
      await page.screenshot({ path, clip: box });
      return;
    }
  }
  await page.screenshot({ path });
}

async function command(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: step });
  await input.fill(">" + title);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: step });
  await page.keyboard.press("Enter");
}

async function quickOpen(text) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: step });
  await input.fill(text);
  if (!text.startsWith(":")) await page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first().waitFor({ timeout: step });
  await page.keyboard.press("Enter");
}

/** chatFrame finds the frame of the Hermes chat webview (it holds #prompt). */
async function chatFrame() {
  return waitFor("the Hermes chat webview", async () => {
    for (const f of page.frames()) {
      if (await f.$("#prompt").catch(() => null)) return f;
    }
    return null;
  });
}

async function send(text) {
  await chat.locator("#prompt").click();
  await chat.locator("#prompt").fill(text);
  await chat.locator("#prompt").press("Enter");
}

async function agentText(text) {
  await chat.locator(".msg.agent", { hasText: text }).first().waitFor({ timeout: step });
}

/** transcript is what the chat shows, for comparing a live session with its reload. */
async function transcript() {
  return chat.evaluate(() =>
    [...document.querySelectorAll("#log > .item:not([hidden]) > *")].map((el) => {
      if (el.classList.contains("user")) return `user: ${el.querySelector(".user-text")?.textContent?.trim()}`;
      if (el.classList.contains("agent")) return `agent: ${el.textContent?.trim()}`;
      if (el.classList.contains("thought")) return "thought";
      if (el.classList.contains("tool")) return `card ${[...el.classList].find((c) => c.startsWith("kind-"))}: ${el.querySelector(".card-title")?.textContent}`;
      if (el.classList.contains("plan")) return "plan";
      return `other: ${el.className}`;
    }),
  );
}

/** noticeLast checks that the restart's notice follows the whole replayed conversation. */
async function noticeLast(what) {
  const t = await transcript();
  check(/^other: notice/.test(t[t.length - 1] ?? ""), `after ${what} the notice is not below the replayed conversation: ${JSON.stringify(t)}`);
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
  await context.grantPermissions(["clipboard-read", "clipboard-write"]).catch(() => {});
  page = await context.newPage();
  page.setDefaultTimeout(step);
  await page.goto(`http://127.0.0.1:${port}/?workspace=${encodeURIComponent(workspaceFile)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: step });
  await page.locator(".activitybar [aria-label^='Hermes']").first().waitFor({ timeout: step });
  log("workbench loaded");

  // --- 1. Lazy activation: the workbench is up, the extension installed, no agent runs. ---
  await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: step }).catch(() => {});
  await new Promise((r) => setTimeout(r, 3000)); // give start-up activations their chance
  check(agentProcesses().length === 0, `hermes-acp runs before the Hermes view was opened: pids ${agentProcesses()}`);
  log("no hermes-acp before the view is opened");

  // --- 2. First run without a model. ---
  await page.locator(".activitybar [aria-label^='Hermes']").first().click();
  chat = await chatFrame();
  // A wider side bar, as a user would drag it.
  const sb = await page.locator(".part.sidebar").boundingBox();
  const sash = await page.evaluate((right) => {
    for (const el of document.querySelectorAll(".monaco-sash.vertical")) {
      const r = el.getBoundingClientRect();
      if (Math.abs(r.left + r.width / 2 - right) < 6 && r.height > 200) return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }
    return null;
  }, sb ? sb.x + sb.width : 0);
  if (sash) {
    await page.mouse.move(sash.x, sash.y);
    await page.mouse.down();
    await page.mouse.move(sash.x + 260, sash.y, { steps: 8 });
    await page.mouse.up();
  }
  await waitFor("an agent process once the view is open", () => agentProcesses().length === 1);
  const setupButton = chat.locator("#empty button", { hasText: "Configure model" });
  await setupButton.waitFor({ timeout: step });
  await chat.locator("#empty h2", { hasText: "Choose a model" }).waitFor();
  await shot("01-first-run-no-model.png");
  log("empty state: no model, with Configure model");
  await setupButton.click();
  const xterm = page.locator(".terminal-wrapper.active .xterm, .xterm").first();
  await xterm.waitFor({ timeout: step });
  const screenText = () => page.locator(".xterm-rows").first().innerText().catch(() => "");
  await waitFor("the setup's first question", async () => /Provider/.test(await screenText()));
  await shot("02-setup-in-terminal.png");
  await xterm.click();
  for (const [question, answer] of [
    [/Provider/, "openai"],
    [/base URL/, "http://127.0.0.1:9/v1"],
    [/Model name/, "e2e-model"],
    [/API key/, "sk-e2e"],
  ]) {
    await waitFor(`the setup to ask ${question}`, async () => question.test(await screenText()));
    await page.keyboard.type(answer);
    await page.keyboard.press("Enter");
  }
  await waitFor("the setup to write the configuration", () => existsSync(join(hermesHome, "config.yaml")) && /e2e-model/.test(readFileSync(join(hermesHome, "config.yaml"), "utf8")));
  await chat.locator("#empty h2", { hasText: "Ask Hermes" }).waitFor({ timeout: step });
  await waitFor("the model picker to show the configured model", async () => (await chat.locator(".picker-model select").inputValue().catch(() => "")) === "e2e-model");
  await shot("03-after-setup.png");
  log("setup done: the chat reconnected with e2e-model");

  // From here on the scripted model answers: hermes.args changed in the
  // settings editor, as a user would; the change restarts the agent.
  await command("Preferences: Open User Settings (JSON)");
  const settingsEditor = page.locator(".monaco-editor", { hasText: "hermes.args" }).last();
  await settingsEditor.waitFor();
  await settingsEditor.locator(".view-line", { hasText: "hermes.args" }).click();
  await page.keyboard.press("Control+A");
  // One line, so that the editor's auto-indent has nothing to indent.
  await page.keyboard.insertText(JSON.stringify(JSON.parse(settingsText(["--model", "script:" + script]))));
  await page.keyboard.press("Control+S");
  await waitFor("the settings to be saved", () => readFileSync(settingsFile, "utf8").includes("script:"));
  await command("View: Close All Editors");
  await waitFor("the model picker to show the scripted model", async () => (await chat.locator(".picker-model select").inputValue().catch(() => "")) === "script");
  log("settings changed: the agent restarted with the scripted model");

  // --- 3. A prompt with attached files and the editor's selection. ---
  await quickOpen("app.ts");
  await page.locator(".tab", { hasText: "app.ts" }).first().waitFor();
  await quickOpen(":2");
  await page.keyboard.down("Shift");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.up("Shift");
  await chat.locator("#context .chip.selection", { hasText: "lines 2–3" }).waitFor({ timeout: step });
  await chat.locator("#prompt").click();
  await chat.locator("#prompt").pressSequentially("Explain this with @conf");
  await chat.locator(".completion", { hasText: "config.json" }).first().waitFor({ timeout: step });
  await chat.locator("#prompt").press("Enter"); // accepts the completion
  await chat.locator("#context .chip", { hasText: "config.json" }).waitFor();
  // A file dropped on the chat (as from the Explorer).
  await chat.evaluate((uri) => {
    const dt = new DataTransfer();
    dt.setData("text/uri-list", uri);
    document.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, "file://" + join(ws, "notes.md"));
  await chat.locator("#context .chip", { hasText: "notes.md" }).waitFor({ timeout: step });
  await chat.locator("#prompt").pressSequentially(" and the notes");
  await shot("04-context-before-sending.png");
  await chat.locator("#prompt").press("Enter");
  await agentText("The second folder is in reach too.");
  const userChips = await chat.locator(".msg.user").last().locator(".chip").allInnerTexts();
  check(userChips.some((c) => /config\.json/.test(c)) && userChips.some((c) => /notes\.md/.test(c)) && userChips.some((c) => /app\.ts/.test(c) && /lines 2–3/.test(c)), `the prompt's chips: ${userChips}`);
  await chat.locator(".card.status-completed .card-title", { hasText: "shared.txt" }).first().waitFor();
  const answer = chat.locator(".msg.agent", { hasText: "Here is what the selection does" }).first();
  check((await answer.locator("table th").count()) === 2, "the table has its head");
  check((await answer.locator("code.inline", { hasText: "$HERMES_HOME" }).count()) === 1, "inline code keeps its underscore");
  const font = await answer.locator("code.inline").first().evaluate((el) => getComputedStyle(el).fontFamily);
  check(!/^-apple-system|system-ui|sans-serif$/.test(font), `inline code is monospace: ${font}`);
  check((await answer.locator(".code-block .hljs-keyword, .code-block .hljs-string").count()) > 0, "the code block is highlighted");
  await answer.locator(".code-block button[data-action=copy]").click();
  await shot("05-context-answer.png");
  log("attachments, selection, second folder: OK");

  // --- 4. A dangerous command approved from the chat card. ---
  await command("Hermes: New Session");
  await chat.locator("#empty h2", { hasText: "Ask Hermes" }).waitFor({ timeout: step });
  await send("Clean the build folder");
  const approval = chat.locator(".approval.waiting").first();
  await approval.waitFor({ timeout: step });
  await chat.locator(".card.status-waiting .badge.waiting", { hasText: "Waiting for you" }).waitFor();
  check((await approval.locator("code").first().innerText()).includes("rm -rf build"), "the card shows the command");
  const labels = await approval.locator("button[data-action=answer]").allInnerTexts();
  // hermes-acp's options for this command, in its order, with their full labels.
  const agentLabels = ["Allow once", "Allow for this session", "Always allow this exact command", "Always allow rm -rf build/*", "Deny", "Deny always"];
  check(JSON.stringify(labels.map((l) => l.trim())) === JSON.stringify(agentLabels), `the card offers the agent's options with their full labels: ${JSON.stringify(labels)}`);
  const clipped = await approval.locator("button[data-action=answer]").evaluateAll((bs) => bs.filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent));
  check(clipped.length === 0, `labels cut off: ${clipped}`);
  // No approval notification (the set-up's "the chat is ready" may still be up).
  const approvalToasts = page.locator(".notification-toast", { hasText: /Hermes (is waiting for you|wants to )/ });
  check((await approvalToasts.count()) === 0, `no approval toast while the card is in view: ${await approvalToasts.allInnerTexts()}`);
  await page.locator(".statusbar-item", { hasText: "waiting for you" }).first().waitFor();
  await shot("06-command-approval-card.png");
  log(`approval card: ${labels.join(" | ")}; waiting past the agent's default timeout`);
  await new Promise((r) => setTimeout(r, agentDefaultApprovalTimeout + 5000));
  check((await chat.locator(".approval.waiting").count()) === 1, "the approval stopped waiting (timed out) while the window was open");
  check(existsSync(join(ws, "build")), "the command ran before it was allowed");
  await approval.locator("button", { hasText: "Allow once" }).click();
  await agentText("is gone");
  await chat.locator(".approval.settled", { hasText: "Allow once · in the chat" }).waitFor();
  await chat.locator(".terminal-head code", { hasText: "$ rm -rf build" }).first().waitFor();
  await chat.locator(".terminal-state.ok", { hasText: "exit 0" }).first().waitFor();
  check(!existsSync(join(ws, "build")), "the build folder is still there");
  await shot("07-command-done.png");
  const live = await transcript();
  log("command approved from the chat after the agent's default timeout: OK");

  // --- 5. An edit accepted in the diff editor: the card and the notification follow. ---
  await command("Hermes: New Session");
  await chat.locator("#empty h2", { hasText: "Ask Hermes" }).waitFor({ timeout: step });
  await send("Add the beta tag to config.json");
  const accept = page.locator('.editor-actions .action-label[aria-label*="Accept Edit"]').first();
  await accept.waitFor({ state: "visible", timeout: step });
  await page.locator(".tab", { hasText: "config.json: current ↔ proposed" }).first().waitFor({ timeout: step });
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "Hermes wants to edit config.json" });
  await toast.first().waitFor({ timeout: step });
  const editCard = chat.locator(".approval.waiting").first();
  await editCard.waitFor();
  await editCard.locator("tr.diff-add", { hasText: '"beta",' }).waitFor();
  await editCard.locator(".lint.bad", { hasText: "introduces 1" }).waitFor();
  const editLabels = await editCard.locator("button[data-action=answer]").allInnerTexts();
  check(editLabels.includes("Allow edit") && editLabels.includes("Reject"), `edit options: ${editLabels}`);
  check(readFileSync(join(ws, "config.json"), "utf8") === original, "config.json changed before Accept");
  await shot("08-edit-waiting.png");
  log("diff open with ✓/✗, the notification and the chat card; clicking ✓");
  await accept.click();
  await waitFor("config.json to change on disk", () => readFileSync(join(ws, "config.json"), "utf8") === broken);
  await chat.locator(".approval.settled", { hasText: "Allow edit · in the diff editor" }).waitFor({ timeout: step });
  await waitFor("the notification to close", async () => (await toast.count()) === 0);
  await agentText("now lists the beta tag");
  await command("Focus on Problems View");
  await page.locator(".markers-panel .monaco-list-row", { hasText: "hermes-lint" }).first().waitFor({ timeout: step });
  const problems = await page.locator(".markers-panel").innerText();
  check(/config\.json/.test(problems), `the Problems panel does not name config.json:\n${problems}`);
  await shot("09-edit-accepted.png");
  log("edit accepted in the diff editor: card and notification followed");

  // --- 6. Restart, then a prompt that works; a crash, then a prompt that works. ---
  await command("Hermes: Restart the Agent");
  await chat.locator(".notice", { hasText: "reopened this session" }).first().waitFor({ timeout: step });
  await noticeLast("the restart");
  await send("Still there?");
  await agentText("survived the restart");
  await shot("10-after-restart.png", true);
  const [pid] = agentProcesses();
  check(pid, "no agent process to kill");
  process.kill(pid, "SIGKILL");
  // (The restart's notice went with the transcript it was in: notices are not replayed.)
  await chat.locator(".notice", { hasText: /exited unexpectedly.*reopened this session/ }).first().waitFor({ timeout: step });
  await noticeLast("the crash");
  await send("And after a crash?");
  await agentText("Still here after the crash.");
  check((await chat.locator("text=Session not found").count()) === 0, "a prompt failed with Session not found");
  await shot("11-after-crash.png", true);
  log("restart and crash: the session was reopened and the prompts worked");

  // --- 7. History with relative times; a loaded session looks like the live one. ---
  await command("Hermes: Open a Previous Session");
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "Clean the build folder" }).first();
  await row.waitFor({ timeout: step });
  const descriptions = await page.locator(".quick-input-list .monaco-list-row .label-description").allInnerTexts();
  check(descriptions.length >= 3 && descriptions.every((d) => /^(just now|\d+ minutes? ago|\d+ hours? ago)$/.test(d.trim())), `History times: ${JSON.stringify(descriptions)}`);
  await shot("12-history.png");
  await row.click();
  await chat.locator(".msg.user", { hasText: "Clean the build folder" }).waitFor({ timeout: step });
  await agentText("is gone");
  const loaded = await transcript();
  check(JSON.stringify(loaded) === JSON.stringify(live), `the loaded session differs from the live one:\nlive:   ${JSON.stringify(live)}\nloaded: ${JSON.stringify(loaded)}`);
  await chat.locator(".terminal-head code", { hasText: "$ rm -rf build" }).first().waitFor();
  await shot("13-loaded-session.png", true);
  log(`loaded session matches the live one: ${live.length} items`);

  // --- 8. Escape cancels a running turn. ---
  await command("Hermes: New Session");
  await chat.locator("#empty h2", { hasText: "Ask Hermes" }).waitFor({ timeout: step });
  await send("Run the slow job");
  await chat.locator(".terminal-state.running").first().waitFor({ timeout: step });
  await waitFor("the slow job to run", () => commandProcesses("sleep 117").length === 1);
  await chat.locator("#stop").waitFor({ state: "visible" });
  await shot("14-running.png", true);
  await chat.locator("#prompt").press("Escape");
  await chat.locator(".notice", { hasText: "Stopped." }).first().waitFor({ timeout: step });
  await chat.locator("#send").waitFor({ state: "visible" });
  // The agent kills the editor terminal; its card says how the command ended, and no sleep is left.
  await chat.locator(".terminal-state.failed", { hasText: /killed|exit/ }).first().waitFor({ timeout: step });
  await waitFor("the command to be gone after Escape", () => commandProcesses("sleep 117").length === 0);
  check((await chat.locator(".terminal-state.running").count()) === 0, "the card still shows the command running after Escape");
  check((await chat.locator(".card.status-cancelled").count()) === 1, "the stopped call is not shown cancelled");
  await shot("15-cancelled.png", true);
  log("Escape cancelled the turn");
  log(`OK; screenshots in ${out}`);
} catch (err) {
  failed = true;
  console.error(`[e2e] FAILED: ${err.stack || err}`);
  try {
    if (page) {
      await page.screenshot({ path: join(out, "failure.png") });
      console.error(`[e2e] screenshot of the failure: ${join(out, "failure.png")}`);
    }
    if (chat) writeFileSync(join(out, "failure-chat.html"), await chat.content());
  } catch {
    // best effort
  }
  const logs = join(ud, "logs");
  if (existsSync(logs)) {
    const r = spawnSync("sh", ["-c", `find '${logs}' -name '*Hermes*' -o -name 'exthost.log' | head -5 | xargs -r tail -n 60`], { encoding: "utf8" });
    console.error(r.stdout);
  }
} finally {
  await browser?.close().catch(() => {});
  if (server) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 500));
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(T, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
