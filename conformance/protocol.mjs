#!/usr/bin/env node
// Protocol-edge conformance: the official ACP TypeScript SDK plays an editor
// against an agent whose model (cmd/hermes-acp's TestTypeScriptSDKProtocol
// starts a fake one) does what a hostile or clumsy model would:
//
//   [big]   calls the MCP tool mcp_test_big for 20 MiB of text, over the
//           16 MiB limit of one stdio MCP message, then mcp_test_echo on the
//           same server, and replies "big: RESULT1 | echo: RESULT2". The
//           oversized result must be refused with a clear message and the
//           server must stay usable: the echo works, no "stopped" message.
//           Both tool_calls carry the MCP tools' full names.
//   [read]  calls read_file on a file while this editor's fs/read_text_file
//           handler never answers; with fs.timeout set to 1 s the turn must
//           end normally and the model be told the editor did not answer.
//
// Usage:
//   node conformance/protocol.mjs AGENT [ARGS...]
//
// Environment:
//   PROTOCOL_MCP_SERVER     the mcptest stdio MCP server (internal/mcptest)
//   CONFORMANCE_WORKDIR     an empty folder for the workspace (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, playTurn, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const update = (e) => e?.msg?.params?.update;

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const mcpServer = process.env.PROTOCOL_MCP_SERVER;
  if (!command || !mcpServer) {
    process.stderr.write("usage: PROTOCOL_MCP_SERVER=SERVER node conformance/protocol.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-protocol-"));
  const transcript = process.env.CONFORMANCE_TRANSCRIPT;
  try {
    const ws = join(workdir, "ws");
    mkdirSync(ws, { recursive: true });
    const file = join(ws, "a.txt");
    writeFileSync(file, "on disk\n");
    const reads = [];
    const agentProc = await startAgent(command, args, { transcript, label: "protocol" });
    try {
      const app = acp
        .client({ name: "hermes-acp-protocol" })
        .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" } }))
        .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
          reads.push(params);
          return new Promise(() => {}); // an editor that never answers
        })
        .onRequest(acp.methods.client.fs.writeTextFile, () => ({}));
      await app.connectWith(agentProc.stream, async (agent) => {
        await step(
          "initialize",
          agent.request(acp.methods.agent.initialize, {
            protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
            clientInfo: { name: "hermes-acp-protocol", version: sdkVersion },
          }),
        );
        const session = await step(
          "session/new",
          agent.buildSession({ cwd: ws, mcpServers: [{ name: "test", command: mcpServer, args: [], env: [] }] }).start(),
        );
        try {
          const big = await playTurn(session, agentProc.wire, "big", "[big] fetch a lot");
          const text = big.text();
          check(big.stopReason === "end_turn", `big: stopReason ${show(big.stopReason)}, want "end_turn"`);
          check(text.includes("over the 16 MiB limit"), `big: the model was not told the 20 MiB result is over the limit: ${show(text.slice(0, 600))}`);
          check(text.includes(`echo: {"result":"still here"}`), `big: the call after the oversized result did not work: ${show(text.slice(0, 600))}`);
          check(!text.includes("stopped"), `big: the chat says a server stopped: ${show(text.slice(0, 600))}`);
          check(update(big.finalUpdate("call_big"))?.status === "failed", `big: call_big ended ${show(update(big.finalUpdate("call_big"))?.status)}, want "failed"`);
          check(update(big.finalUpdate("call_echo"))?.status === "completed", `big: call_echo ended ${show(update(big.finalUpdate("call_echo"))?.status)}, want "completed"`);
          // An MCP tool's tool_call carries its full name.
          for (const [id, name] of [["call_big", "mcp_test_big"], ["call_echo", "mcp_test_echo"]]) {
            const got = update(big.toolCall(id))?.name;
            check(got === name, `big: the tool_call of ${id} is named ${show(got)}, want ${show(name)}`);
          }
          note(`big: a 20 MiB MCP result was refused (${show(text.slice(text.indexOf("big: "), text.indexOf("big: ") + 90))}…) and the next call on the server worked`);

          const read = await playTurn(session, agentProc.wire, "read", "[read] read a.txt");
          const rtext = read.text();
          check(read.stopReason === "end_turn", `read: stopReason ${show(read.stopReason)}, want "end_turn"`);
          check(reads.length === 1 && reads[0].path === file, `read: fs/read_text_file requests ${show(reads)}, want one for ${show(file)}`);
          check(rtext.includes("did not answer fs/read_text_file"), `read: the model was not told the editor did not answer: ${show(rtext)}`);
          check(!rtext.includes("on disk"), `read: the model read a disk copy instead: ${show(rtext)}`);
          check(read.requests("fs/read_text_file").length === 1, `read: ${read.requests("fs/read_text_file").length} fs/read_text_file on the wire, want 1`);
          const cancels = read.agent((e) => e.msg?.method === "$/cancel_request");
          check(cancels.length === 1, `read: ${cancels.length} $/cancel_request on the wire, want 1 for the unanswered read`);
          note(`read: an editor that never answers fs/read_text_file ended the turn normally; the model read ${show(rtext.slice(0, 140))}…`);
        } finally {
          session.dispose();
        }
      });
    } finally {
      await stopAgent(agentProc);
    }
  } catch (err) {
    failWith(err);
  } finally {
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report("protocol", command);
}

await main();
