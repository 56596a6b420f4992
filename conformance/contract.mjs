#!/usr/bin/env node
// Tool contract conformance: the official ACP TypeScript SDK plays an
// editor against an agent whose model cmd/hermes-acp's
// TestTypeScriptSDKContract scripts, for the two bugs of issue #10 fixed
// ahead of its refactor.
//
// Usage:
//   node conformance/contract.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment and working directory; the
// Go test starts this script (and so the agent) in a folder that is not the
// session's cwd. Environment:
//   CONTRACT_WS_A           the cwd of the session that writes and reads back
//   CONTRACT_WS_B           the cwd of a second session that saves a result
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Prompts (the model's replies are the Go test's):
//   "contract other" (session B): one search whose result the budget saves.
//   "contract writes" (session A): one reply with two write_file calls of
//     one file, spelled x.txt and <cwd>/x.txt, both allowed: the second
//     call starts (its tool_call) only after the first completed, and its
//     permission request shows the first call's content as the old text.
//   "contract budget" (session A): three large search results, saved, then
//     read back with read_file page by page (the Go test checks the pages).
//   "contract refused" (session A): read_file of session B's saved result
//     and of $HERMES_HOME/sessions.db (the Go test checks both refused).
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// updatesOf returns the indexes, in updates, of the tool call id's updates.
function updatesOf(updates, id) {
  const out = [];
  updates.forEach((u, i) => {
    if ((u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id) out.push(i);
  });
  return out;
}

// diffOf returns the one diff of a permission request's tool call.
const diffOf = (p) => (p?.toolCall?.content ?? []).filter((c) => c.type === "diff");

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const wsA = process.env.CONTRACT_WS_A;
  const wsB = process.env.CONTRACT_WS_B;
  if (!command || !wsA || !wsB) {
    process.stderr.write("usage: CONTRACT_WS_A=DIR CONTRACT_WS_B=DIR node conformance/contract.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const permissions = [];
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "contract" });
  try {
    const app = acp.client({ name: "hermes-acp-contract" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const allow = params.options.find((o) => o.optionId === "allow");
      check(allow !== undefined, `session/request_permission offers no "allow" option: ${show(params.options)}`);
      return allow ? { outcome: { outcome: "selected", optionId: "allow" } } : { outcome: { outcome: "cancelled" } };
    });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-contract", version: sdkVersion },
        }),
      );
      const b = await step("session/new B", agent.buildSession(wsB).start());
      const a = await step("session/new A", agent.buildSession(wsA).start());
      try {
        const other = await runTurn(b, "contract other", "contract other");
        check(other.stopReason === "end_turn", `contract other: stopReason ${show(other.stopReason)}, want "end_turn"`);

        const writes = await runTurn(a, "contract writes", "contract writes");
        check(writes.stopReason === "end_turn", `contract writes: stopReason ${show(writes.stopReason)}, want "end_turn"`);
        const first = updatesOf(writes.updates, "call_w1");
        const second = updatesOf(writes.updates, "call_w2");
        if (check(first.length > 0 && second.length > 0, `contract writes: updates for call_w1 ${first.length}, call_w2 ${second.length}`)) {
          const done = writes.updates[first[first.length - 1]];
          check(done.status === "completed", `contract writes: call_w1 ended ${show(done.status)}, want "completed"`);
          check(
            second[0] > first[first.length - 1],
            `contract writes: call_w2 started (update ${second[0]}) before call_w1 completed (update ${first[first.length - 1]}): the two writes of x.txt interleaved`,
          );
          const last = writes.updates[second[second.length - 1]];
          check(last.status === "completed", `contract writes: call_w2 ended ${show(last.status)}, want "completed"`);
        }
        const asked = permissions.map((p) => p.toolCall?.toolCallId);
        check(show(asked) === show(["call_w1", "call_w2"]), `contract writes: permission requests for ${show(asked)}, want call_w1 then call_w2`);
        const abs = join(wsA, "x.txt");
        const [d1, d2] = [diffOf(permissions[0]), diffOf(permissions[1])];
        check(d1.length === 1 && d1[0].path === abs && d1[0].oldText === null && d1[0].newText === "first\n", `contract writes: call_w1's diff ${show(d1)}, want a new ${abs} holding "first\\n"`);
        check(
          d2.length === 1 && d2[0].path === abs && d2[0].oldText === "first\n" && d2[0].newText === "second\n",
          `contract writes: call_w2's diff ${show(d2)}, want ${abs} from "first\\n" to "second\\n" (the diff approved must be the change made)`,
        );
        note(`contract writes: call_w2 started after call_w1 completed; its diff showed "first\\n" → "second\\n"`);

        for (const name of ["contract budget", "contract refused"]) {
          const turn = await runTurn(a, name, name);
          check(turn.stopReason === "end_turn", `${name}: stopReason ${show(turn.stopReason)}, want "end_turn"`);
          const failed = turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed").map((u) => u.toolCallId);
          note(`${name}: ${turn.updates.length} updates; failed calls ${show(failed)}`);
          if (name === "contract budget") check(failed.length === 0, `${name}: calls failed: ${show(failed)}`);
          if (name === "contract refused") check(failed.length === 2, `${name}: failed calls ${show(failed)}, want both reads refused`);
        }
      } finally {
        a.dispose();
        b.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
  }
  report("tool contract conformance", command);
}

await main();
