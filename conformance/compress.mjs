#!/usr/bin/env node
// Context compression conformance (issue #13): the official ACP TypeScript
// SDK drives one session past the compression threshold of a small
// model.context_length, then a second hermes-acp process loads the session.
//
// Usage:
//   node conformance/compress.mjs AGENT [ARGS...]
//
// The agents inherit this process's environment; $HERMES_HOME/config.yaml
// must set a small model.context_length. The model must answer a prompt
// "read fileN.txt" with the tool call read_file {"path":"fileN.txt"} (id
// call_N), a tool result with "read N", and a summary request with any
// text (cmd/hermes-acp's TestTypeScriptSDKCompression starts such a fake
// and checks the requests the model received). Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//   COMPRESS_PROMPTS        how many "read fileN.txt" prompts (default 6)
//
// The first process writes file1.txt … fileN.txt (2 000 characters each)
// into the workspace and prompts "read fileN.txt" for each, all on one
// session: every turn ends with end_turn and a usage_update whose size is
// the configured context length; one turn tells the user the context was
// compressed; "again file1.txt" (tool call read_file file1.txt, id
// call_again) reads the first file once more; /context names the
// compression threshold. The second process
// loads the session by the same id and the replay holds every prompt and
// every tool call of the original conversation.
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

async function session(command, args, label, op) {
  const proc = await startAgent(command, args, { env: process.env, transcript: process.env.CONFORMANCE_TRANSCRIPT, label });
  const updates = [];
  try {
    const app = acp.client({ name: `hermes-acp-compress-${label}` }).onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    });
    await app.connectWith(proc.stream, async (agent) => {
      await step(
        `${label}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-compress", version: sdkVersion },
        }),
      );
      await op(agent, updates);
    });
  } finally {
    await stopAgent(proc);
  }
}

const text = (updates) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/compress.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const ws = own ? mkdtempSync(`${tmpdir()}/hermes-acp-compress-`) : process.env.CONFORMANCE_WORKDIR;
  const n = Number(process.env.COMPRESS_PROMPTS || 6);
  try {
    for (let i = 1; i <= n; i++) {
      writeFileSync(`${ws}/file${i}.txt`, `file ${i}: ` + "lorem ipsum dolor sit amet ".repeat(74) + "\n");
    }
    let sid;
    await session(command, args, "first", async (agent, updates) => {
      const res = await step("first: session/new", agent.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] }));
      sid = res.sessionId;
      for (let i = 1; i <= n; i++) {
        const before = updates.length;
        const p = `read file${i}.txt`;
        const r = await step(`first: session/prompt ${show(p)}`, agent.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: p }] }));
        check(r.stopReason === "end_turn", `first: ${show(p)} stopped with ${show(r.stopReason)}`);
        const turn = updates.slice(before);
        const usage = turn.filter((u) => u.sessionUpdate === "usage_update");
        check(usage.length > 0 && usage.at(-1).size === 4000 && usage.at(-1).used > 0, `first: ${show(p)}: usage_update ${show(usage.at(-1))}, want size 4000`);
        check(text(turn).includes(`read ${i}`), `first: ${show(p)}: answer ${show(text(turn))}`);
      }
      check(text(updates).includes("Context compressed"), "first: the user was never told the context was compressed");
      // The read dedup was reset: the model gets file1.txt again in full
      // (the Go test checks the tool result it received).
      const again = await step("first: session/prompt \"again file1.txt\"", agent.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "again file1.txt" }] }));
      check(again.stopReason === "end_turn", `first: "again file1.txt" stopped with ${show(again.stopReason)}`);
      const before = updates.length;
      await step("first: /context", agent.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "/context" }] }));
      const ctx = text(updates.slice(before));
      check(ctx.includes("compression at ~3200 tokens (80%)") && ctx.includes("Compressed:"), `first: /context said ${show(ctx)}`);
    });
    await session(command, args, "second", async (agent, updates) => {
      await step("second: session/load", agent.request(acp.methods.agent.session.load, { sessionId: sid, cwd: ws, mcpServers: [] }));
      const users = updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
      const calls = updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
      const want = [...Array.from({ length: n }, (_, i) => `read file${i + 1}.txt`), "again file1.txt"];
      const ok =
        check(show(users) === show(want), `second: replayed prompts ${show(users)}, want ${show(want)}`) &&
        check(calls.length === n + 1, `second: replayed ${calls.length} tool calls, want ${n + 1}`) &&
        check(!users.some((u) => u.includes("CONTEXT COMPACTION")), "second: the summary was replayed as a prompt");
      if (ok) note(`session/load of the compressed session replays all ${n} prompts and tool calls`);
    });
  } catch (err) {
    failWith(err);
  } finally {
    if (own) rmSync(ws, { recursive: true, force: true });
  }
  report("context compression conformance", [command, ...args].join(" "));
}

main();
