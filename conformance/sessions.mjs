#!/usr/bin/env node
// Session conformance (#27 items 1 and 2, the ACP test kit's session checks):
// the official ACP TypeScript SDK plays editors that each start the agent
// anew on one $HERMES_HOME, with no model configured:
//
//   1. session/new, session/set_mode accept_edits, exit — never prompted;
//   2. session/load of it: the mode comes back, nothing is replayed but the
//      command list, which arrives before the reply, and no session/update
//      follows the reply within 2 s; then session/resume (same checks) and
//      session/close;
//   3. session/resume, session/close and session/delete of it in a third
//      process; a session/load of it then fails with -32002.
//
// Usage:
//   node conformance/sessions.mjs AGENT [ARGS...]
//
// The agents inherit this process's environment (HERMES_HOME included).
// Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// quiet is how long the editor listens after a load or resume reply.
const quiet = 2000;

// withAgent starts the agent, connects an editor that records every
// session/update with the time it arrived, initializes and runs op.
async function withAgent(command, args, label, op) {
  const proc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label });
  const updates = [];
  try {
    const app = acp.client({ name: `hermes-acp-sessions-${label}` }).onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push({ at: Date.now(), sessionId: params.sessionId, kind: params.update.sessionUpdate });
    });
    await app.connectWith(proc.stream, async (agent) => {
      const init = await step(
        `${label}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-sessions", version: sdkVersion },
        }),
      );
      const caps = init.agentCapabilities ?? {};
      check(caps.loadSession === true, `${label}: loadSession not advertised`);
      for (const c of ["resume", "close", "delete", "list"]) {
        check(caps.sessionCapabilities?.[c] != null, `${label}: sessionCapabilities.${c} not advertised`);
      }
      await op(agent, updates);
    });
  } finally {
    await stopAgent(proc);
  }
}

// restoreChecked runs session/load or session/resume and checks what came
// before and after its reply.
async function restoreChecked(label, agent, updates, method, sessionId, cwd, wantMode) {
  const from = updates.length;
  const res = await step(`${label}: ${method}`, agent.request(method, { sessionId, cwd, mcpServers: [] }));
  const repliedAt = Date.now();
  const before = updates.slice(from).map((u) => u.kind);
  check(show(before) === show(["available_commands_update"]), `${label}: ${method} sent ${show(before)} before its reply, want only the command list`);
  check(res?.modes?.currentModeId === wantMode, `${label}: ${method} modes.currentModeId = ${show(res?.modes?.currentModeId)}, want ${show(wantMode)}`);
  const modeOption = (res?.configOptions ?? []).find((o) => o.id === "mode");
  check(modeOption?.currentValue === wantMode, `${label}: ${method} config option mode = ${show(modeOption?.currentValue)}, want ${show(wantMode)}`);
  const seen = updates.length;
  await new Promise((resolve) => setTimeout(resolve, quiet));
  const late = updates.slice(seen).filter((u) => u.at >= repliedAt);
  check(late.length === 0, `${label}: ${late.length} session/update within ${quiet} ms after the ${method} reply: ${show(late.map((u) => u.kind))}`);
  return res;
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/sessions.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const given = process.env.CONFORMANCE_WORKDIR;
  const ws = given || mkdtempSync(join(tmpdir(), "hermes-acp-sessions-"));
  try {
    let sessionId;
    await withAgent(command, args, "first", async (agent) => {
      const res = await step("first: session/new", agent.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] }));
      sessionId = res.sessionId;
      check(res.modes?.currentModeId === "default", `first: session/new mode ${show(res.modes?.currentModeId)}, want "default"`);
      await step("first: session/set_mode accept_edits", agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "accept_edits" }));
    });
    note(`session ${sessionId} made and set to accept_edits, never prompted; the agent exited`);

    await withAgent(command, args, "second", async (agent, updates) => {
      const list = await step("second: session/list", agent.request(acp.methods.agent.session.list, {}));
      check(list.sessions.length === 0, `second: session/list = ${show(list.sessions)}, want no session (one never prompted is not listed)`);
      await restoreChecked("second", agent, updates, acp.methods.agent.session.load, sessionId, ws, "accept_edits");
      await restoreChecked("second", agent, updates, acp.methods.agent.session.resume, sessionId, ws, "accept_edits");
      await step("second: session/close", agent.request(acp.methods.agent.session.close, { sessionId }));
    });
    note("a new process loaded and resumed it in accept_edits, the command list before each reply and nothing within 2 s after; closed it");

    await withAgent(command, args, "third", async (agent) => {
      await step("third: session/resume", agent.request(acp.methods.agent.session.resume, { sessionId, cwd: ws, mcpServers: [] }));
      await step("third: session/close", agent.request(acp.methods.agent.session.close, { sessionId }));
      await step("third: session/delete", agent.request(acp.methods.agent.session.delete, { sessionId }));
      let code;
      try {
        await agent.request(acp.methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] });
      } catch (err) {
        code = err?.code;
      }
      check(code === -32002, `third: session/load after delete answered ${show(code)}, want error -32002`);
    });
    note("a third process resumed, closed and deleted it, and a load then failed with -32002");
  } catch (err) {
    failWith(err);
  } finally {
    if (!given) rmSync(ws, { recursive: true, force: true });
  }
  report("sessions", command);
}

await main();
