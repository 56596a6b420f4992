#!/usr/bin/env node
// Project context conformance: the official ACP TypeScript SDK plays an
// editor against an agent whose model cmd/hermes-acp's
// TestTypeScriptSDKProjectContext scripts and inspects. The Go test checks
// what the model received (the system message, the tool result); this
// script drives the sessions and checks what the editor sees.
//
// Usage:
//   node conformance/project_context.mjs AGENT [ARGS...]
//
// Environment:
//   PROJECT_WS_GOOD         a workspace with an AGENTS.md at its root and
//                           another in sub/, next to sub/x.txt
//   PROJECT_WS_BAD          a workspace whose AGENTS.md is a prompt injection
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Prompts (the model's replies are the Go test's):
//   "project hello" (good): answered with text.
//   "project read" (good): one read_file of sub/x.txt, then text.
//   "project injected" (bad): answered with text.
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const good = process.env.PROJECT_WS_GOOD;
  const bad = process.env.PROJECT_WS_BAD;
  if (!command || !good || !bad) {
    process.stderr.write("usage: PROJECT_WS_GOOD=DIR PROJECT_WS_BAD=DIR node conformance/project_context.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "project" });
  try {
    const app = acp.client({ name: "hermes-acp-project-context" });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-project-context", version: sdkVersion },
        }),
      );
      const g = await step("session/new good", agent.buildSession(good).start());
      const b = await step("session/new bad", agent.buildSession(bad).start());
      try {
        const hello = await runTurn(g, "project hello", "project hello");
        check(hello.stopReason === "end_turn", `project hello: stopReason ${show(hello.stopReason)}, want "end_turn"`);
        check(agentText(hello.updates) === "hello", `project hello: agent text ${show(agentText(hello.updates))}, want "hello"`);

        const read = await runTurn(g, "project read", "project read");
        check(read.stopReason === "end_turn", `project read: stopReason ${show(read.stopReason)}, want "end_turn"`);
        const done = read.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_read" && u.status === "completed");
        check(done.length === 1, `project read: call_read completed ${done.length} times, want once`);
        note("project read: read_file of sub/x.txt completed");

        const injected = await runTurn(b, "project injected", "project injected");
        check(injected.stopReason === "end_turn", `project injected: stopReason ${show(injected.stopReason)}, want "end_turn"`);
        check(agentText(injected.updates) === "ok", `project injected: agent text ${show(agentText(injected.updates))}, want "ok"`);
        note("sessions on a workspace with AGENTS.md and on one with an injected AGENTS.md ran their turns");
      } finally {
        g.dispose();
        b.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
  }
  report("project context conformance", command);
}

await main();
