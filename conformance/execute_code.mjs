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
//
// Every SDK complaint fails the run. Exit status: 0 on success, 1 on any
// failure, 2 for usage errors.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  const scriptPath = join(workdir, "execute_code.script.yaml");
  writeFileSync(scriptPath, JSON.stringify(script)); // JSON is YAML

  const permissions = [];
  const app = acp.client({ name: "hermes-acp-execute-code" }).onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
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
        check(permissions.length === 1, `files: ${permissions.length} permission requests, want 1`);
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
      } finally {
        session.dispose?.();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
    if (own) rmSync(workdir, { recursive: true, force: true });
  }
  report("execute_code conformance", command);
}

main().catch((err) => {
  failWith(err);
  report("execute_code conformance", process.argv[2]);
});
