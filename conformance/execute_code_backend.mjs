#!/usr/bin/env node
// execute_code on a terminal backend (issue 24): the official ACP
// TypeScript SDK plays an editor against an agent whose terminal.backend
// is docker or ssh, and checks that scripts run where commands run:
//   where: a script reads input.txt and runs a command through hermes_tools,
//     writes made-by-script.txt, and prints where it runs (the container's
//     PID 1, or its folder on the ssh host) and whether any variable holds a
//     token; the editor sees "Ran in <backend>", the file is in the
//     workspace here afterwards, the calls are shown under the script.
//   timeout: a script that starts a sleep and loops is killed at
//     code_execution.timeout (5 s); nothing of it is left running.
//   cancel: the same script with a sleep of its own; once its sleep runs
//     the editor sends session/cancel: the turn ends "cancelled", the
//     script's tool call ends failed, and nothing of it is left running;
//     the next script runs normally.
//
// Usage:
//   node conformance/execute_code_backend.mjs AGENT [ARGS...]
// Environment: BACKEND (docker | ssh), BACKEND_WS (the workspace, holding
// input.txt), BACKEND_REMOTE (ssh: the remote folder), CONFORMANCE_TRANSCRIPT;
// the agent's model follows the prompts "[ID] TOOL {arguments}" and echoes
// the result (cmd/hermes-acp's TestTypeScriptSDKExecuteCodeBackends).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, finalOf, note, processesWith, report, resultOf, runTurn, sdkVersion, show, startAgent, step, stopAgent, waitFor } from "./lib.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node conformance/execute_code_backend.mjs AGENT [ARGS...]");
  process.exit(2);
}
const backend = process.env.BACKEND;
const ws = process.env.BACKEND_WS;
const prompt = (id, tool, a) => `[${id}] ${tool} ${JSON.stringify(a)}`;
const textOf = (u) => (u?.content ?? []).map((c) => c.content?.text ?? "").join("\n");

const where = `
import os
from hermes_tools import read_file, terminal
print("read:", read_file("input.txt")["content"])
print("terminal:", terminal("echo via-terminal")["output"])
open("made-by-script.txt", "w").write("from the script\\n")
print("cwd:", os.getcwd())
print("pid1:", open("/proc/1/cmdline", "rb").read().replace(b"\\0", b" ").decode().strip())
print("tokens:", [k for k in os.environ if "TOKEN" in k])
`;

// Durations no other test's sleep has, to find this one's in /proc.
const nap = `8${process.pid}.${Date.now() % 100000}`;
const napCancel = `9${process.pid}.${Date.now() % 100000}`;
const looping = (d) => `
import subprocess
subprocess.Popen(["sleep", "${d}"])
while True:
    pass
`;
const loop = looping(nap);

try {
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: `execute_code_${backend}` });
  try {
    const app = acp.client({ name: "hermes-acp-execute-code-backend" }).onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      const once = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: once.optionId } };
    });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-execute-code-backend", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());

      let turn = await runTurn(session, "where", prompt("where", "execute_code", { code: where }));
      const r = resultOf(turn, "where");
      const out = String(r?.output ?? "");
      check(r?.status === "success", `where: ${show(r)}`);
      check(out.includes("read: 1|hello from here") && out.includes("terminal: via-terminal") && out.includes("tokens: []"), `where: the script printed ${show(out)}`);
      if (backend === "docker") {
        check(out.includes("sh -c while :; do sleep 3600; done"), `where: not in the container: ${show(out)}`);
      } else {
        check(out.includes(`cwd: ${process.env.BACKEND_REMOTE}`), `where: not in the remote folder ${show(process.env.BACKEND_REMOTE)}: ${show(out)}`);
      }
      const fin = finalOf(turn, "call_where");
      const ran = new RegExp(backend === "docker" ? "Ran in docker container [0-9a-f]{12}" : "Ran in ssh ").exec(textOf(fin));
      check(ran, `where: the tool call does not say where it ran: ${show(textOf(fin))}`);
      const children = turn.updates.filter((u) => u.sessionUpdate === "tool_call" && u._meta?.hermes?.parentToolCallId === "call_where");
      check(show(children.map((u) => u.title)) === show(["[py 1] read: input.txt", "[py 2] terminal: echo via-terminal"]), `where: calls shown ${show(children.map((u) => u.title))}`);
      const made = join(ws, "made-by-script.txt");
      check(existsSync(made) && readFileSync(made, "utf8") === "from the script\n", "where: the file the script wrote is not in the workspace here");
      note(`where: the script ran ${backend === "docker" ? "in the session's container" : "in the remote folder"} (${show(ran?.[0])}); its read and command were served through the relay; its file is here; no token in its environment`);

      turn = await runTurn(session, "timeout", prompt("timeout", "execute_code", { code: loop }));
      const rt = resultOf(turn, "timeout");
      check(rt?.status === "timeout" && String(rt.error).includes("timed out after 5s"), `timeout: ${show(rt)}`);
      let left = processesWith(`sleep ${nap}`);
      for (let i = 0; i < 40 && left.length > 0; i++) {
        await new Promise((res) => setTimeout(res, 50)); // a killed process is reaped asynchronously
        left = processesWith(`sleep ${nap}`);
      }
      check(left.length === 0, `timeout: left running: ${show(left)}`);
      note("timeout: the looping script was killed at code_execution.timeout with the process it started");

      let sent = false;
      turn = await runTurn(session, "cancel", prompt("cancel", "execute_code", { code: looping(napCancel) }), async (u) => {
        if (!sent && u.sessionUpdate === "tool_call") {
          sent = true;
          check(await waitFor(() => processesWith(`sleep ${napCancel}`).length > 0, 15000), "cancel: the script's sleep never started");
          await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
        }
      });
      check(sent && turn.stopReason === "cancelled", `cancel: stopReason ${show(turn.stopReason)} (cancel sent: ${sent}), want "cancelled"`);
      const rc = finalOf(turn, "call_cancel");
      check(rc?.status === "failed", `cancel: the script's tool call ended ${show(rc?.status)}, want failed`);
      check(await waitFor(() => processesWith(`sleep ${napCancel}`).length === 0), `cancel: left running: ${show(processesWith(`sleep ${napCancel}`))}`);
      turn = await runTurn(session, "after", prompt("after", "execute_code", { code: "print('after the cancel')" }));
      check(resultOf(turn, "after")?.status === "success" && String(resultOf(turn, "after")?.output).includes("after the cancel"), `after: ${show(resultOf(turn, "after"))}`);
      note("cancel: session/cancel while the script ran → \"cancelled\", nothing of it left running; the next script ran");
      session.dispose?.();
    });
  } finally {
    await stopAgent(agentProc);
  }
} catch (err) {
  failWith(err);
}
process.exit(report(`execute_code on ${backend}`, [command, ...args].join(" ")));
