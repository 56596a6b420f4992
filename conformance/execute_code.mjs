#!/usr/bin/env node
// execute_code conformance (issue 16, item 1): the official ACP TypeScript
// SDK plays an editor while the scripted model runs Python scripts that call
// the agent's tools through hermes_tools.
//
// Usage:
//   node conformance/execute_code.mjs AGENT [ARGS...]
//
// The agent is started once with AGENT ARGS --model script:FILE, where FILE
// is a script this program writes. The agent's config.yaml (the Go test
// writes it in $HERMES_HOME) sets code_execution.timeout: 3. Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace and the script
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Prompts, in one session of a client without fs capabilities:
//   files: a script reads a.txt, b.txt and c.txt through
//     hermes_tools.read_file, patches a.txt (the editor gets the permission
//     request with the diff, shown under the execute_code call, and rejects
//     it: a.txt is unchanged) and prints a summary, which the model receives
//     (its next reply's expect checks the tool result).
//   refusals: a script reads /etc/hostname through hermes_tools (refused by
//     the workspace rules) and writes ~/escape.txt with open() (refused by
//     the sandbox); it prints both errors and the model receives them.
//   timeout: a script that starts `sleep 1000` and loops forever is killed
//     at code_execution.timeout; the model receives the timeout. Its
//     sleep's marker is written to pgid-timeout (the Go test checks /proc).
//   cancel: the same loop; when the script has written pgid-cancel the
//     editor sends session/cancel: the prompt ends "cancelled" and the next
//     prompt ends end_turn.
//   hostile (default mode): a script runs os.system("touch hostile-system")
//     and subprocess.run(["touch", "hostile-subprocess"]); the permission
//     request shows the script as python code and both commands with their
//     lines; the editor denies it: neither file exists, and the model reads
//     the denial.
//   dont_ask: after session/set_mode dont_ask, a script with no command
//     runs without asking, and its writes into $HOME (open() and an
//     os.system redirect) are refused by the sandbox; a script whose
//     command is hidden in a variable still asks (fail closed), is denied
//     and does not run.
//   network (accept_edits): a script that runs `git ls-remote` of a
//     loopback listener this program starts outside the sandbox asks for
//     the network (its request says so and offers running without); run
//     without it, git reaches no listener; run with it, the listener gets
//     git's request. In both runs the script's write into $HOME is refused:
//     the network grant does not lift the rest of the sandbox.
// Every script of the default mode asks; the editor allows them except
// hostile's and the hidden one, and rejects the edit (files).
//
// Every SDK complaint fails the run. Exit status: 0 on success, 1 on any
// failure, 2 for usage errors.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, fail, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const filesScript = `
from hermes_tools import read_file, patch
seen = {}
for name in ["a.txt", "b.txt", "c.txt"]:
    seen[name] = read_file(name)["content"].split("|", 1)[1]
res = patch(path="a.txt", old_string="alpha", new_string="ALPHA")
print("summary:", ", ".join(f"{k}={v}" for k, v in seen.items()), "| patch:", res.get("error", "applied"))
`;

const refusalsScript = `
import os
from hermes_tools import read_file
res = read_file("/etc/hostname")
print("outside read:", res.get("error", "READ IT"))
try:
    with open(os.path.expanduser("~/escape.txt"), "w") as f:
        f.write("x")
    print("home write: WROTE IT")
except OSError as err:
    print("home write:", type(err).__name__, err.strerror)
`;

// The loop's sleep has a duration of its own (1000.<digits>), which the Go
// test looks for in /proc: process ids inside the sandbox are its own.
const loopScript = (file) => {
  const marker = `1000.${process.pid}${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  return `
import subprocess
subprocess.Popen(["sleep", "${marker}"])
with open("${file}", "w") as f:
    f.write("${marker}\\n")
while True:
    pass
`;
};

const hostileScript = `
import os, subprocess
os.system("touch hostile-system")
subprocess.run(["touch", "hostile-subprocess"])
print("ran")
`;

const dontAskEscapeScript = `
import os
try:
    with open(os.path.expanduser("~/escape-dontask.txt"), "w") as f:
        f.write("x")
    print("home write: WROTE IT")
except OSError as err:
    print("home write:", type(err).__name__)
print("shell write exit:", os.system("echo x > ~/escape-dontask-shell.txt") != 0)
`;

const hiddenScript = `
import subprocess
cmd = "touch " + "hidden-ran"
subprocess.run(cmd, shell=True)
`;

const networkScript = (port) => `
import os, subprocess
try:
    with open(os.path.expanduser("~/escape-acceptedits.txt"), "w") as f:
        f.write("x")
    print("home write: WROTE IT")
except OSError as err:
    print("home write:", type(err).__name__)
r = subprocess.run(["git", "ls-remote", "http://127.0.0.1:${port}/repo.git"], capture_output=True, text=True)
print("git exit:", r.returncode)
`;

const script = {
  replies: [
    { tool_calls: [{ name: "execute_code", id: "call_files", arguments: { code: filesScript } }] },
    {
      expect: { role: "tool", matches: "summary: a.txt=alpha, b.txt=beta, c.txt=gamma \\| patch: Edit approval denied" },
      text: "The script read three files; the patch was rejected.",
    },
    { tool_calls: [{ name: "execute_code", id: "call_refusals", arguments: { code: refusalsScript } }] },
    {
      expect: { role: "tool", matches: "(?s)outside read: .*outside the workspace.*home write: (PermissionError Permission denied|OSError Read-only file system)" },
      text: "Both were refused.",
    },
    { tool_calls: [{ name: "execute_code", id: "call_timeout", arguments: { code: loopScript("pgid-timeout") } }] },
    { expect: { role: "tool", contains: "Script timed out after 3s and was killed." }, text: "The loop was stopped at the timeout." },
    { tool_calls: [{ name: "execute_code", id: "call_cancel", arguments: { code: loopScript("pgid-cancel") } }] },
    { text: "still here after the cancel." },
    { tool_calls: [{ name: "execute_code", id: "call_hostile", arguments: { code: hostileScript } }] },
    { expect: { role: "tool", contains: "BLOCKED: User denied this script." }, text: "The user denied the script." },
    { tool_calls: [{ name: "execute_code", id: "call_escape", arguments: { code: dontAskEscapeScript } }] },
    { expect: { role: "tool", matches: "home write: (PermissionError|OSError)\\\\nshell write exit: True" }, text: "Both home writes were refused." },
    { tool_calls: [{ name: "execute_code", id: "call_hidden", arguments: { code: hiddenScript } }] },
    { expect: { role: "tool", contains: "BLOCKED: User denied this script." }, text: "The hidden command was denied." },
  ],
};

const textOf = (u) => (u.content ?? []).map((c) => c.content?.text ?? "").join("\n");

async function prompt(session, name, text, onUpdate = () => {}) {
  const updates = [];
  session.prompt(text).catch(() => {});
  for (;;) {
    const message = await step(`${name}: session/prompt`, session.nextUpdate());
    if (message.kind === "stop") return { stop: message.stopReason, updates };
    updates.push(message.update);
    onUpdate(message.update);
  }
}

const said = (updates) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/execute_code.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const workdir = own ? mkdtempSync(join(tmpdir(), "hermes-execute-code-")) : process.env.CONFORMANCE_WORKDIR;
  const ws = join(workdir, "ws");
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "a.txt"), "alpha\n");
  writeFileSync(join(ws, "b.txt"), "beta\n");
  writeFileSync(join(ws, "c.txt"), "gamma\n");
  // The loopback listener outside the sandbox that only a script granted
  // the network can reach.
  const gitRequests = [];
  const listener = createServer((req, res) => {
    gitRequests.push(req.url);
    res.writeHead(404).end();
  });
  await new Promise((res) => listener.listen(0, "127.0.0.1", res));
  const port = listener.address().port;
  script.replies.push(
    { tool_calls: [{ name: "execute_code", id: "call_net_without", arguments: { code: networkScript(port) } }] },
    { expect: { role: "tool", matches: "(?s)home write: (PermissionError|OSError)\\\\ngit exit: [1-9].*without the network" }, text: "It ran without the network." },
    { tool_calls: [{ name: "execute_code", id: "call_net_with", arguments: { code: networkScript(port) } }] },
    { expect: { role: "tool", matches: "home write: (PermissionError|OSError)\\\\ngit exit: " }, text: "It ran with the network." },
  );
  const scriptPath = join(workdir, "execute_code.script.yaml");
  writeFileSync(scriptPath, JSON.stringify(script)); // JSON is YAML

  // Edits are rejected; scripts are allowed unless denyScripts names the
  // execute_code call.
  const permissions = [];
  const scriptPerms = [];
  const denyScripts = new Set(["call_hostile", "call_hidden"]);
  const app = acp.client({ name: "hermes-acp-execute-code" }).onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    if (params.toolCall.title?.startsWith("Run Python script: ")) {
      scriptPerms.push(params);
      const deny = denyScripts.has(params.toolCall.toolCallId);
      const without = params.toolCall.toolCallId === "call_net_without";
      const opt = params.options.find((o) => (without ? o.optionId === "allow_without" : o.kind === (deny ? "reject_once" : "allow_once")));
      return { outcome: { outcome: "selected", optionId: opt.optionId } };
    }
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "reject" } };
  });
  const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], {
    transcript: process.env.CONFORMANCE_TRANSCRIPT,
    label: "execute_code",
  });
  try {
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-execute-code", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        // files
        let r = await prompt(session, "files", "[files] read three files and patch one");
        check(r.stop === "end_turn", `files: stopReason ${show(r.stop)}`);
        const start = r.updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_files");
        check(start?.title === "python: from hermes_tools import read_file, patch" && start?.kind === "execute", `files: execute_code call ${show(start)}`);
        check(textOf(start ?? {}).startsWith("```python\n"), `files: the call does not show the code in a python fence: ${show(start?.content)}`);
        const children = r.updates.filter((u) => u.sessionUpdate === "tool_call" && u._meta?.hermes?.parentToolCallId === "call_files");
        check(
          show(children.map((u) => u.title)) === show(["[py 1] read: a.txt", "[py 2] read: b.txt", "[py 3] read: c.txt", "[py 4] patch (replace): a.txt"]),
          `files: the script's calls shown ${show(children.map((u) => u.title))}`,
        );
        check(permissions.length === 1, `files: ${permissions.length} edit permission requests, want 1`);
        check(scriptPerms.length === 1 && scriptPerms[0].toolCall.toolCallId === "call_files", `files: script permission requests ${show(scriptPerms.map((p) => p.toolCall.toolCallId))}, want call_files asked`);
        const perm = permissions[0]?.toolCall ?? {};
        const diff = (perm.content ?? []).find((c) => c.type === "diff");
        check(diff?.oldText === "alpha\n" && diff?.newText === "ALPHA\n" && diff?.path?.endsWith("a.txt"), `files: permission diff ${show(perm.content)}`);
        check(perm._meta?.hermes?.parentToolCallId === "call_files", `files: permission _meta ${show(perm._meta)}`);
        check(readFileSync(join(ws, "a.txt"), "utf8") === "alpha\n", "files: a.txt changed after reject");
        const end = r.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_files" && u.status).at(-1);
        check(end?.status === "completed" && textOf(end).includes("summary: a.txt=alpha"), `files: execute_code ended ${show(end)}`);
        check(said(r.updates).includes("the patch was rejected"), `files: the model did not read the summary: ${show(said(r.updates))}`);
        note("files: three read_file calls shown under the execute_code call; the patch asked with its diff; after reject a.txt is unchanged; the model read the summary");

        // refusals
        r = await prompt(session, "refusals", "[refusals] try to escape");
        const rend = r.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_refusals" && u.status).at(-1);
        check(r.stop === "end_turn" && said(r.updates).includes("Both were refused."), `refusals: ended ${show(r.stop)} saying ${show(said(r.updates))}; the script printed ${show(textOf(rend ?? {}))}`);
        check(!existsSync(join(process.env.HOME ?? "/nonexistent", "escape.txt")), "refusals: the script wrote into $HOME");
        note("refusals: hermes_tools.read_file outside the workspace refused; open() into $HOME refused by the sandbox; the model read both errors");

        // timeout
        r = await prompt(session, "timeout", "[timeout] loop forever");
        const tend = r.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_timeout" && u.status).at(-1);
        check(r.stop === "end_turn" && tend?.status === "failed", `timeout: ended ${show(r.stop)}, call ${show(tend?.status)}`);
        check(said(r.updates).includes("stopped at the timeout"), `timeout: the model did not read the timeout: ${show(said(r.updates))}`);
        note("timeout: the loop was killed at code_execution.timeout (3 s) and the model read hermes's timeout message");

        // cancel
        let cancelled = false;
        const pgidFile = join(ws, "pgid-cancel");
        const waiter = setInterval(() => {
          if (!cancelled && existsSync(pgidFile) && readFileSync(pgidFile, "utf8").endsWith("\n")) {
            cancelled = true;
            agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId }).catch((err) => fail(`cancel: session/cancel: ${err}`));
          }
        }, 20);
        try {
          r = await prompt(session, "cancel", "[cancel] loop until cancelled");
        } finally {
          clearInterval(waiter);
        }
        check(cancelled && r.stop === "cancelled", `cancel: stopReason ${show(r.stop)} (cancel sent: ${cancelled})`);
        r = await prompt(session, "after cancel", "are you there?");
        check(r.stop === "end_turn" && said(r.updates).includes("still here after the cancel"), `after cancel: ${show(r.stop)} ${show(said(r.updates))}`);
        note("cancel: session/cancel while the script loops → stopReason cancelled; the next prompt → end_turn");

        // hostile: asked in the default mode, denied, nothing of it ran
        r = await prompt(session, "hostile", "[hostile] run two commands");
        const hp = scriptPerms.find((p) => p.toolCall.toolCallId === "call_hostile");
        const htext = (hp?.toolCall.content ?? []).map((c) => c.content?.text ?? "").join("\n");
        check(hp?.toolCall.kind === "execute" && hp?.toolCall.title === "Run Python script: import os, subprocess", `hostile: permission request ${show(hp?.toolCall)}`);
        for (const want of ["line 3, `os.system`: `touch hostile-system`", "line 4, `subprocess.run`: `touch hostile-subprocess`", "```python\n" + hostileScript.trimEnd() + "\n```"]) {
          check(htext.includes(want), `hostile: the permission request does not show ${show(want)}: ${show(htext)}`);
        }
        check(!existsSync(join(ws, "hostile-system")) && !existsSync(join(ws, "hostile-subprocess")), "hostile: a command of the denied script ran");
        check(r.stop === "end_turn" && said(r.updates).includes("The user denied the script."), `hostile: ${show(r.stop)} ${show(said(r.updates))}`);
        note("hostile: the script was asked with its code and both commands (os.system, subprocess.run); denied, neither ran");

        // dont_ask: no ask without commands, and still sandboxed
        await step("session/set_mode", agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "dont_ask" }));
        const asked = scriptPerms.length;
        r = await prompt(session, "escape", "[escape] write into home");
        check(scriptPerms.length === asked, `escape: dont_ask asked for a script with no command (${scriptPerms.length - asked} requests)`);
        check(said(r.updates).includes("Both home writes were refused."), `escape: ${show(said(r.updates))}; the script printed ${show(textOf(r.updates.filter((u) => u.toolCallId === "call_escape" && u.status).at(-1) ?? {}))}`);
        for (const f of ["escape-dontask.txt", "escape-dontask-shell.txt"]) {
          check(!existsSync(join(process.env.HOME ?? "/nonexistent", f)), `escape: the script wrote ~/${f} in dont_ask`);
        }
        note("dont_ask: a script without commands ran unasked; its writes into $HOME (open() and a shell redirect) were refused by the sandbox");
        r = await prompt(session, "hidden", "[hidden] run a hidden command");
        const hid = scriptPerms.find((p) => p.toolCall.toolCallId === "call_hidden");
        const hidText = (hid?.toolCall.content ?? []).map((c) => c.content?.text ?? "").join("\n");
        check(hid && hidText.includes("hidden by expansion"), `hidden: dont_ask did not ask for a hidden command: ${show(hidText)}`);
        check(!existsSync(join(ws, "hidden-ran")) && said(r.updates).includes("The hidden command was denied."), "hidden: the denied script ran, or the model did not read the denial");
        note("dont_ask: a script whose command is built at run time still asked (fail closed); denied, it did not run");

        // network: asked in accept_edits; without it git reaches nothing,
        // with it the listener outside; the sandbox holds either way
        await step("session/set_mode", agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "accept_edits" }));
        r = await prompt(session, "network without", "[network] git ls-remote, without the network");
        const np = scriptPerms.find((p) => p.toolCall.toolCallId === "call_net_without");
        const npText = (np?.toolCall.content ?? []).map((c) => c.content?.text ?? "").join("\n");
        check(np && npText.includes("Asks to run with the network") && npText.includes("`git ls-remote http://127.0.0.1:") && np.toolCall.rawInput?.network === true,
          `network: the request does not ask for the network: ${show(np?.toolCall)}`);
        check(show(np?.options.map((o) => o.optionId)) === show(["allow_once", "allow_session", "allow_without", "deny"]), `network: options ${show(np?.options)}`);
        check(r.stop === "end_turn" && said(r.updates).includes("It ran without the network.") && gitRequests.length === 0,
          `network without: ${show(said(r.updates))}, the listener got ${show(gitRequests)}; the script printed ${show(textOf(r.updates.filter((u) => u.toolCallId === "call_net_without" && u.status).at(-1) ?? {}))}`);
        r = await prompt(session, "network with", "[network] git ls-remote, with the network");
        check(r.stop === "end_turn" && said(r.updates).includes("It ran with the network.") && gitRequests.some((u) => u.startsWith("/repo.git/")),
          `network with: ${show(said(r.updates))}, the listener got ${show(gitRequests)}; the script printed ${show(textOf(r.updates.filter((u) => u.toolCallId === "call_net_with" && u.status).at(-1) ?? {}))}`);
        check(!existsSync(join(process.env.HOME ?? "/nonexistent", "escape-acceptedits.txt")), "network: the script wrote into $HOME in accept_edits");
        note(`network: accept_edits asked for the network of git ls-remote (run with, for the session, without, deny); without it the listener outside got nothing, with it ${show(gitRequests[0])}; $HOME stayed unwritable both times`);
      } finally {
        session.dispose?.();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
    listener.close();
    if (own) rmSync(workdir, { recursive: true, force: true });
  }
  report("execute_code conformance", command);
}

main().catch((err) => {
  failWith(err);
  report("execute_code conformance", process.argv[2]);
});
