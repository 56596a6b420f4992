#!/usr/bin/env node
// Memory conformance: the official ACP TypeScript SDK plays an editor while
// the model (scripted by cmd/hermes-acp's TestTypeScriptSDKMemory) saves a
// memory with the `memory` tool. The Go test runs this script as several
// agent processes sharing one $HERMES_HOME: writers at the same time, then
// a reader whose system prompt must hold every writer's entry.
//
// Usage:
//   node conformance/memory.mjs AGENT [ARGS...]
//
// Environment:
//   MEMORY_WS               the session's cwd
//   MEMORY_PHASE            "write", "hostile" or "read"
//   MEMORY_TAG              the writer's tag (write phase)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Prompts (the model's replies are the Go test's):
//   "memory write TAG": one memory call (id call_mem_TAG) adding the entry
//     "TAG prefers tabs over spaces" to the user profile, then "write done".
//     The editor must see the call as kind "other", titled
//     "memory add: user", completed, and never the entry's text in its
//     completion.
//   "memory hostile KIND" (phase "hostile"; KIND inject or zwsp): one
//     memory call (id call_hostile_KIND) adding a prompt injection or an
//     entry with a zero-width space to the agent's notes. The editor must
//     see the call failed with hermes's refusal naming the pattern
//     ('prompt_injection', or invisible unicode character U+200B); the Go
//     test checks nothing was stored and the next session's prompt lacks it.
//   "memory read": a plain reply "read done" (the Go test checks the
//     system prompt the model received).
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const ws = process.env.MEMORY_WS;
  const phase = process.env.MEMORY_PHASE;
  const tag = process.env.MEMORY_TAG ?? "";
  if (!command || !ws || !["write", "hostile", "read"].includes(phase) || (phase === "write" && !tag)) {
    process.stderr.write("usage: MEMORY_WS=DIR MEMORY_PHASE=write|hostile|read [MEMORY_TAG=T] node conformance/memory.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: `memory ${phase} ${tag}` });
  try {
    const app = acp.client({ name: "hermes-acp-memory" });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-memory", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        if (phase === "write") {
          const name = `memory write ${tag}`;
          const turn = await runTurn(session, name, name);
          check(turn.stopReason === "end_turn", `${name}: stopReason ${show(turn.stopReason)}, want "end_turn"`);
          const id = `call_mem_${tag}`;
          const mine = turn.updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id);
          const start = mine.find((u) => u.sessionUpdate === "tool_call");
          if (check(start !== undefined, `${name}: no tool_call for ${id}; updates ${show(turn.updates.map((u) => u.sessionUpdate))}`)) {
            check(start.kind === "other", `${name}: kind ${show(start.kind)}, want "other"`);
            check(start.title === "memory add: user", `${name}: title ${show(start.title)}, want "memory add: user"`);
          }
          const end = mine.filter((u) => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed")).at(-1);
          if (check(end !== undefined, `${name}: ${id} never ended: ${show(mine)}`)) {
            check(end.status === "completed", `${name}: ${id} ended ${show(end.status)}, want "completed": ${show(end)}`);
            const shown = show(end.content ?? []);
            check(shown.includes("Entry added."), `${name}: the completion does not say the entry was added: ${shown}`);
            check(!shown.includes("prefers tabs"), `${name}: the completion echoes the stored entry: ${shown}`);
          }
          check(agentText(turn.updates).includes("write done"), `${name}: agent text ${show(agentText(turn.updates))}, want "write done"`);
          note(`${name}: ${id} shown as ${show(start?.title)} (${show(start?.kind)}), ${show(end?.status)}`);
        } else if (phase === "hostile") {
          const refusals = { inject: "Blocked: content matches threat pattern 'prompt_injection'", zwsp: "Blocked: content contains invisible unicode character U+200B" };
          for (const [kind, want] of Object.entries(refusals)) {
            const name = `memory hostile ${kind}`;
            const turn = await runTurn(session, name, name);
            const id = `call_hostile_${kind}`;
            const end = turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && (u.status === "completed" || u.status === "failed")).at(-1);
            if (check(end !== undefined, `${name}: ${id} never ended`)) {
              check(end.status === "failed", `${name}: ${id} ended ${show(end.status)}, want "failed": ${show(end)}`);
              check(show(end.content ?? []).includes(want), `${name}: the editor was not shown ${show(want)}: ${show(end.content)}`);
            }
            check(agentText(turn.updates).includes("hostile done"), `${name}: agent text ${show(agentText(turn.updates))}`);
            note(`${name}: refused, the editor saw ${show(want)}`);
          }
        } else {
          const turn = await runTurn(session, "memory read", "memory read");
          check(turn.stopReason === "end_turn", `memory read: stopReason ${show(turn.stopReason)}, want "end_turn"`);
          check(agentText(turn.updates).includes("read done"), `memory read: agent text ${show(agentText(turn.updates))}`);
        }
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
  }
  report(`memory conformance (${phase}${tag ? " " + tag : ""})`, command);
}

await main();
