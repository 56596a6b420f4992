#!/usr/bin/env node
// Process conformance: the official ACP TypeScript SDK plays an editor
// while the model (scripted by cmd/hermes-acp's TestTypeScriptSDKProcess)
// runs commands in the background with `terminal` and manages them with
// `process` (issue #11).
//
// Usage:
//   node conformance/process.mjs AGENT [ARGS...]
//
// Environment:
//   PROCESS_WS              the session's cwd (a workspace folder)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Each prompt is "[ID] TOOL ARGS": the model calls TOOL with the JSON ARGS
// under the call id call_ID, then answers "ID done; the tool said: RESULT".
//
// The editor advertises no terminal, so the agent runs the commands. A
// command started with background=true returns at once with its
// session_id; `process list` shows it running, `poll` shows its output so
// far, `wait` returns its exit code and the end of its output, `log` pages
// its lines. A second background command is killed: `kill` says so, its
// process is gone from /proc and `poll` says it exited. An unknown id is
// an error the model reads. Every call is shown to the editor as an
// `execute` tool call titled "process <action>[: <id>]" that completes
// (or fails, for the unknown id).
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import * as acp from "@agentclientprotocol/sdk";
import { callUpdates, check, failWith, finalOf, note, processesWith, report, resultOf, runTurn, sdkVersion, show, startAgent, step, stopAgent, waitFor } from "./lib.mjs";

const prompt = (id, tool, args) => `[${id}] ${tool} ${JSON.stringify(args)}`;

// shown checks how the editor shows call id: kind, title, final status.
function shown(turn, id, title, status) {
  const first = callUpdates(turn, id).find((u) => u.sessionUpdate === "tool_call");
  check(first?.kind === "execute", `${id}: kind ${show(first?.kind)}, want "execute"`);
  check(first?.title === title, `${id}: title ${show(first?.title)}, want ${show(title)}`);
  const fin = finalOf(turn, id);
  check(fin?.status === status, `${id}: final status ${show(fin?.status)}, want ${show(status)}`);
}

async function run(command, args) {
  const ws = process.env.PROCESS_WS;
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "process" });
  try {
    const app = acp.client({ name: "hermes-acp-process" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      check(false, `unexpected session/request_permission: ${show(params.toolCall?.title)}`);
      return { outcome: { outcome: "selected", optionId: "deny" } };
    });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-process", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());

      // A background command: started, listed, polled, waited for, paged.
      const job = "for i in 1 2 3 4 5; do echo tick $i; sleep 0.3; done; echo finished; exit 4";
      let turn = await runTurn(session, "start", prompt("start", "terminal", { command: job, background: true }));
      const started = resultOf(turn, "start");
      const id = started?.session_id;
      check(typeof id === "string" && id !== "", `start: the model was told ${show(started)}, want a session_id`);
      note(`background command started as ${show(id)}`);

      turn = await runTurn(session, "list", prompt("list", "process", { action: "list" }));
      const listed = resultOf(turn, "list")?.processes ?? [];
      const mine = listed.find((p) => p.session_id === id);
      check(mine?.status === "running" && mine.command === job, `list: ${show(listed)}, want ${show(id)} running`);
      shown(turn, "call_list", "process list", "completed");

      turn = await runTurn(session, "poll", prompt("poll", "process", { action: "poll", session_id: id }));
      const polled = resultOf(turn, "poll");
      check(polled?.session_id === id && typeof polled.output_preview === "string", `poll: ${show(polled)}`);
      shown(turn, "call_poll", `process poll: ${id}`, "completed");

      turn = await runTurn(session, "wait", prompt("wait", "process", { action: "wait", session_id: id, timeout: 30 }));
      const waited = resultOf(turn, "wait");
      check(waited?.status === "exited" && waited.exit_code === 4 && String(waited.output).includes("finished"), `wait: ${show(waited)}`);
      shown(turn, "call_wait", `process wait: ${id}`, "completed");
      note("list showed it running; wait returned exit code 4 and the end of its output");

      turn = await runTurn(session, "log", prompt("log", "process", { action: "log", session_id: id, offset: 1, limit: 2 }));
      const log = resultOf(turn, "log");
      check(log?.status === "exited" && log.output === "tick 2\ntick 3" && log.total_lines === 6, `log: ${show(log)}`);
      note("log paged lines 2–3 of 6");

      // A second one, killed.
      turn = await runTurn(session, "long", prompt("long", "terminal", { command: "sleep 33.3331", background: true }));
      const long = resultOf(turn, "long")?.session_id;
      // The sandbox carries the command encoded: its text shows in /proc once sleep has started.
      check(await waitFor(() => processesWith("33.3331").length > 0), "long: the background sleep is not running");
      turn = await runTurn(session, "kill", prompt("kill", "process", { action: "kill", session_id: long }));
      const killed = resultOf(turn, "kill");
      check(killed?.status === "killed", `kill: ${show(killed)}`);
      shown(turn, "call_kill", `process kill: ${long}`, "completed");
      check(await waitFor(() => processesWith("33.3331").length === 0), `kill: processes left: ${show(processesWith("33.3331"))}`);
      turn = await runTurn(session, "after", prompt("after", "process", { action: "poll", session_id: long }));
      check(resultOf(turn, "after")?.status === "exited", `poll after kill: ${show(resultOf(turn, "after"))}`);
      note("kill stopped the second command; no process left in /proc; poll says it exited");

      turn = await runTurn(session, "unknown", prompt("unknown", "process", { action: "poll", session_id: "proc_nope" }));
      const unknown = resultOf(turn, "unknown");
      check(JSON.stringify(unknown ?? "").includes("No process with ID proc_nope"), `unknown: the model was told ${show(unknown)}`);
      shown(turn, "call_unknown", "process poll: proc_nope", "failed");
      note("an unknown id: the model read \"No process with ID proc_nope\", the call failed");
      session.dispose?.();
    });
  } finally {
    await stopAgent(agentProc);
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command || !process.env.PROCESS_WS) {
    process.stderr.write("usage: PROCESS_WS=DIR node conformance/process.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  try {
    await run(command, args);
  } catch (err) {
    failWith(err);
  }
  process.exit(report("process conformance", command));
}

main();
