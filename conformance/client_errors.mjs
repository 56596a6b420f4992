#!/usr/bin/env node
// Client errors keep their reason: the official ACP TypeScript SDK plays an
// editor (fs and terminal capabilities) whose handlers refuse, by throwing
// as a real extension would, fs/read_text_file, fs/write_text_file,
// terminal/create and the edit's session/request_permission. The SDK
// answers each with its own -32603 "Internal error" and the reason in
// error.data.details; the scripted model must find that reason in its tool
// result (each reply expects it), the chat's failed tool call must show it,
// and the refused read must not be answered from the disk: the file's disk
// text appears in nothing the agent sends during that turn.
//
// Usage:
//   node conformance/client_errors.mjs AGENT [ARGS...]
//
// The agent is started with ARGS plus "--model script:FILE", a script this
// file writes. Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace and script
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, playTurn, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// What the disk holds: it must never reach the chat or the model.
const diskSecret = "DISK-ONLY-TEXT-5d1c";

// The steps, in order: each is one prompt in which the model calls tool,
// the editor refuses `refuses` with `reason`, and the model answers
// "<id> ok" only if its tool result contains the reason.
const steps = [
  { id: "read", tool: "read_file", args: { path: "notes.txt" }, refuses: "fs/read_text_file", reason: "notes.txt is excluded by the workspace trust policy" },
  { id: "edit", tool: "write_file", args: { path: "notes.txt", content: "new text\n" }, refuses: "session/request_permission", reason: "approvals are disabled by the administrator" },
  { id: "write", tool: "write_file", args: { path: "other.txt", content: "new text\n" }, refuses: "fs/write_text_file", reason: "other.txt is read-only in this editor" },
  { id: "term", tool: "terminal", args: { command: "echo hello" }, refuses: "terminal/create", reason: "terminals are disabled in restricted mode" },
];

function script() {
  const replies = [];
  for (const st of steps) {
    replies.push({ tool_calls: [{ name: st.tool, id: `call_${st.id}`, arguments: st.args }] });
    replies.push({ expect: { role: "tool", contains: st.reason }, text: `${st.id} ok` });
  }
  return JSON.stringify({ replies }, null, 1);
}

const update = (e) => e?.msg?.params?.update;

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/client_errors.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-client-errors-"));
  const ws = join(workdir, "ws");
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "notes.txt"), `${diskSecret}\n`);
  writeFileSync(join(ws, "other.txt"), "other\n");
  const scriptPath = join(workdir, "script.yaml");
  writeFileSync(scriptPath, script());

  let current; // the step being played
  const refused = [];
  const refuse = (method) => {
    if (current?.refuses !== method) return false;
    refused.push(method);
    throw new Error(current.reason); // the SDK answers -32603 with data.details
  };
  const app = acp
    .client({ name: "hermes-acp-client-errors" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      refuse("session/request_permission");
      return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "allow_once").optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      refuse("fs/read_text_file");
      return { content: readFileSync(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, () => {
      refuse("fs/write_text_file");
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, () => {
      refuse("terminal/create");
      throw new Error(`the agent asked for a terminal in step ${current?.id}`);
    });

  let agentProc;
  try {
    agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "errors" });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          clientInfo: { name: "hermes-acp-client-errors", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        for (const st of steps) {
          current = st;
          const before = refused.length;
          const turn = await playTurn(session, agentProc.wire, st.id, st.id);
          const text = turn.text();
          check(refused.slice(before).join() === st.refuses, `${st.id}: the editor refused ${show(refused.slice(before))}, want ${show([st.refuses])}`);
          check(text === `${st.id} ok`, `${st.id}: the model's reply is ${show(text)}, want ${show(`${st.id} ok`)} (its tool result lacked the editor's reason ${show(st.reason)})`);
          const final = update(turn.finalUpdate(`call_${st.id}`));
          check(final?.status === "failed", `${st.id}: the tool call ended ${show(final?.status)}, want "failed"`);
          const shown = (final?.content ?? []).map((c) => c.content?.text ?? "").join("\n");
          check(shown.includes(st.reason), `${st.id}: the chat's failed tool call shows ${show(shown)}, want the editor's reason ${show(st.reason)}`);
          if (st.id === "read") {
            const leaked = turn.agent((e) => JSON.stringify(e.msg).includes(diskSecret));
            check(leaked.length === 0, `read: the disk text of the refused read reached the editor in ${leaked.length} messages: ${show(leaked.map((e) => e.msg.method ?? "response"))}`);
          }
          note(`${st.id}: ${show(shown.slice(0, 160))}`);
        }
      } finally {
        current = undefined;
        session.dispose();
      }
    });
    check(readFileSync(join(ws, "notes.txt"), "utf8") === `${diskSecret}\n`, "notes.txt changed on disk");
    check(readFileSync(join(ws, "other.txt"), "utf8") === "other\n", "other.txt changed on disk");
  } catch (err) {
    failWith(err);
  } finally {
    if (agentProc) await stopAgent(agentProc);
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report("client errors", command);
}

await main();
