#!/usr/bin/env node
// Plan mode conformance (issue #28, item 5): the official ACP TypeScript
// SDK plays an editor that switches a session to the "plan" mode while the
// scripted model explores, is refused a write and a command that is not
// read-only, proposes its plan with todo and asks to leave plan mode with
// exit_plan_mode; the editor approves, choosing accept_edits, and the
// model's next edit runs.
//
// Usage:
//   node conformance/plan_mode.mjs AGENT [ARGS...]
//
// The agent runs as AGENT ARGS --model script:FILE, FILE a script this
// program writes. Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace and script
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Checked: session/new offers the plan mode; session/set_mode plan; in the
// turn, read_file and the read-only command `ls -la` run while write_file
// and `rm notes.txt` fail with "Blocked in Plan mode" (the file is
// untouched); the only permission request is the plan's (kind switch_mode,
// title "Ready to code?", the plan and the todo list, options accept_edits,
// default, dont_ask, plan); choosing accept_edits sends current_mode_update
// accept_edits, the model reads the approval, and its write then runs
// without asking. Every SDK complaint fails the run. Exit status: 0 on
// success, 1 on any failure, 2 for usage errors.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const script = {
  replies: [
    {
      tool_calls: [
        { name: "read_file", id: "call_read", arguments: { path: "notes.txt" } },
        { name: "write_file", id: "call_write", arguments: { path: "notes.txt", content: "new\n" } },
        { name: "terminal", id: "call_ls", arguments: { command: "ls -la" } },
        { name: "terminal", id: "call_rm", arguments: { command: "rm notes.txt" } },
        {
          name: "todo",
          id: "call_todo",
          arguments: { todos: [{ id: "1", content: "Replace the text of notes.txt", status: "pending" }] },
        },
      ],
    },
    { tool_calls: [{ name: "exit_plan_mode", id: "call_exit", arguments: { plan: "Rewrite notes.txt to say new." } }] },
    {
      expect: { role: "tool", contains: '"approved":true' },
      tool_calls: [{ name: "write_file", id: "call_write2", arguments: { path: "notes.txt", content: "new\n" } }],
    },
    { text: "Done." },
  ],
};

const textOf = (u) => (u?.content ?? []).map((c) => c.content?.text ?? "").join("\n");

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/plan_mode.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const workdir = own ? mkdtempSync(join(tmpdir(), "hermes-plan-")) : process.env.CONFORMANCE_WORKDIR;
  const ws = join(workdir, "ws");
  mkdirSync(ws, { recursive: true });
  const notes = join(ws, "notes.txt");
  writeFileSync(notes, "old\n");
  const scriptPath = join(workdir, "plan.script.yaml");
  writeFileSync(scriptPath, JSON.stringify(script)); // JSON is YAML

  const permissions = [];
  const app = acp.client({ name: "hermes-acp-plan" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    const approve = params.options.find((o) => o.optionId === "accept_edits");
    return approve ? { outcome: { outcome: "selected", optionId: approve.optionId } } : { outcome: { outcome: "cancelled" } };
  });
  let agentProc;
  try {
    agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "plan" });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-plan", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      const sid = session.sessionId;
      try {
        const modes = session.modes?.availableModes?.map((m) => m.id) ?? [];
        check(modes.includes("plan"), `session/new: available modes ${show(modes)}, want plan among them`);
        await step("session/set_mode plan", agent.request(acp.methods.agent.session.setMode, { sessionId: sid, modeId: "plan" }));

        const turn = await runTurn(session, "plan", "plan a change to notes.txt");
        check(turn.stopReason === "end_turn", `plan: stopReason ${show(turn.stopReason)}, want "end_turn"`);
        check(agentText(turn.updates).includes("Done."), `plan: the model did not finish; it said ${show(agentText(turn.updates))}`);
        const final = (id) => turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && ["completed", "failed"].includes(u.status)).at(-1);
        check(final("call_read")?.status === "completed", `plan: read_file ended ${show(final("call_read")?.status)}, want completed`);
        check(final("call_ls")?.status === "completed", `plan: the read-only command ended ${show(final("call_ls"))}, want completed`);
        for (const [id, what] of [["call_write", "write_file"], ["call_rm", "rm notes.txt"]]) {
          const u = final(id);
          check(u?.status === "failed" && textOf(u).includes("Blocked in Plan mode"), `plan: ${what} ended ${show(u)}, want failed with "Blocked in Plan mode"`);
        }
        check(textOf(final("call_rm")).includes("not read-only"), `plan: the refused command does not say it is not read-only: ${show(textOf(final("call_rm")))}`);
        note("plan mode: read_file and `ls -la` ran; write_file and `rm notes.txt` were refused with a clear result");

        check(permissions.length === 1, `plan: ${permissions.length} permission requests, want 1 (the plan; the approved write asks nothing in accept_edits)`);
        const p = permissions[0];
        if (p) {
          check(p.toolCall?.toolCallId === "call_exit" && p.toolCall?.kind === "switch_mode" && p.toolCall?.title === "Ready to code?", `plan: approval tool call ${show(p.toolCall)}`);
          const shown = textOf(p.toolCall);
          check(shown.includes("Rewrite notes.txt to say new.") && shown.includes("Replace the text of notes.txt"), `plan: the approval shows ${show(shown)}, want the plan and the todo list`);
          const ids = p.options.map((o) => o.optionId);
          check(show(ids) === show(["accept_edits", "default", "dont_ask", "plan"]), `plan: approval options ${show(ids)}`);
          check(p.options.find((o) => o.optionId === "plan")?.kind === "reject_once", `plan: "keep planning" is not a reject option: ${show(p.options)}`);
        }
        const switched = turn.updates.findIndex((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "accept_edits");
        const exitDone = turn.updates.findIndex((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_exit" && u.status === "completed");
        check(switched >= 0 && exitDone > switched, `plan: current_mode_update accept_edits ${switched}, exit_plan_mode completed ${exitDone}: want the switch, then the completion`);
        const opts = turn.updates.filter((u) => u.sessionUpdate === "config_option_update").at(-1);
        check(opts?.configOptions?.find((o) => o.id === "mode")?.currentValue === "accept_edits", `plan: config_option_update mode ${show(opts?.configOptions?.find((o) => o.id === "mode"))}`);
        check(final("call_write2")?.status === "completed", `plan: the write after the approval ended ${show(final("call_write2")?.status)}`);
        check(existsSync(notes) && readFileSync(notes, "utf8") === "new\n", `plan: notes.txt = ${existsSync(notes) ? show(readFileSync(notes, "utf8")) : "missing"}, want "new\\n" (written only after the approval)`);
        note("exit_plan_mode: one session/request_permission (switch_mode, the plan and the todo list); accept_edits → current_mode_update, then the write ran unasked");
      } finally {
        session.dispose?.();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    if (agentProc) await stopAgent(agentProc);
    if (own) rmSync(workdir, { recursive: true, force: true });
  }
  report("plan mode conformance", command);
}

main().catch((err) => {
  failWith(err);
  report("plan mode conformance", process.argv[2]);
});
