#!/usr/bin/env node
// session_search conformance: the official ACP TypeScript SDK plays two
// editors that share one $HERMES_HOME, one after the other (two hermes-acp
// processes), and checks that the second one's model finds what was said in
// the first one's session.
//
// Usage:
//   node conformance/session_search.mjs AGENT [ARGS...]
//
// The agents inherit this process's environment (HERMES_HOME included); the
// model must answer a prompt holding "[search]" with the tool call
// session_search {"query":"zanzibar migration"} (id call_search), a tool
// result with "search said: RESULT", and any other prompt with
// "answer to: PROMPT" (cmd/hermes-acp's TestTypeScriptSDKSessionSearch
// starts such a fake). Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// The first process starts a session, prompts about the zanzibar migration
// and exits (its session is saved). The second process starts a session
// and prompts "[search] …": the editor sees a tool call of kind "search"
// titled "session search: zanzibar migration" that completes with a
// rendered list naming the first session, and the model is told the first
// session's id and the matched phrase (between >>> and <<<).
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// session runs op(agent, updates) against one agent process labelled label;
// updates collects every session/update in arrival order.
async function session(command, args, label, op) {
  const proc = await startAgent(command, args, { env: process.env, transcript: process.env.CONFORMANCE_TRANSCRIPT, label });
  const updates = [];
  try {
    const app = acp.client({ name: `hermes-acp-session-search-${label}` }).onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    });
    await app.connectWith(proc.stream, async (agent) => {
      await step(
        `${label}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-session-search", version: sdkVersion },
        }),
      );
      await op(agent, updates);
    });
  } finally {
    await stopAgent(proc);
  }
}

function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
}

async function prompt(agent, label, sessionId, text) {
  const res = await step(`${label}: session/prompt ${show(text)}`, agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }));
  check(res.stopReason === "end_turn", `${label}: prompt ${show(text)} stopped with ${show(res.stopReason)}, want "end_turn"`);
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/session_search.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const ws = own ? mkdtempSync(`${tmpdir()}/hermes-acp-session-search-`) : process.env.CONFORMANCE_WORKDIR;
  try {
    let first;
    const phrase = "Plan the zanzibar migration for Friday night";
    await session(command, args, "first", async (agent, updates) => {
      const res = await step("first: session/new", agent.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] }));
      first = res.sessionId;
      await prompt(agent, "first", first, phrase);
      check(agentText(updates) === `answer to: ${phrase}`, `first: answer ${show(agentText(updates))}`);
    });
    await session(command, args, "second", async (agent, updates) => {
      const res = await step("second: session/new", agent.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] }));
      await prompt(agent, "second", res.sessionId, "[search] what did we plan for zanzibar?");
      const call = updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_search");
      check(call !== undefined, `second: no tool_call for call_search; updates ${show(updates.map((u) => u.sessionUpdate))}`);
      if (call) {
        check(call.kind === "search", `second: tool_call kind ${show(call.kind)}, want "search"`);
        check(call.title === "session search: zanzibar migration", `second: tool_call title ${show(call.title)}`);
      }
      const done = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_search" && u.status === "completed");
      check(done !== undefined, "second: call_search never completed");
      const shown = (done?.content ?? []).map((c) => c.content?.text ?? "").join("");
      check(shown.includes("Found 1 matching session") && shown.includes(">>>zanzibar<<< >>>migration<<<"), `second: the editor shows ${show(shown)}`);
      const told = agentText(updates);
      check(told.startsWith("search said: "), `second: the model's reply ${show(told)}`);
      let result = {};
      try {
        result = JSON.parse(told.slice("search said: ".length));
      } catch (err) {
        check(false, `second: the tool result is not JSON: ${show(told)}`);
      }
      const hit = result.results?.[0];
      const ok =
        check(result.success === true && result.mode === "discover" && result.count === 1, `second: result ${show(result)}`) &&
        check(hit?.session_id === first, `second: found session ${show(hit?.session_id)}, want the first process's ${show(first)}`) &&
        check(hit?.snippet?.includes(">>>zanzibar<<< >>>migration<<<"), `second: snippet ${show(hit?.snippet)}`) &&
        check(hit?.messages?.some((m) => m.anchor === true && m.content === phrase), `second: the match is not in its window: ${show(hit?.messages)}`);
      if (ok && call && done) note("session_search in a second process finds the first process's session; the editor shows a completed search call");
    });
  } catch (err) {
    failWith(err);
  } finally {
    if (own) rmSync(ws, { recursive: true, force: true });
  }
  report("session_search conformance", [command, ...args].join(" "));
}

main();
