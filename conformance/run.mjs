#!/usr/bin/env node
// Conformance run: the official ACP TypeScript SDK (@agentclientprotocol/sdk)
// drives an ACP agent through the scenario in
// cmd/hermes-acp/testdata/e2e/scenario.json and checks what an editor built
// on that SDK would see.
//
// Usage:
//   node conformance/run.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment (point it at a model that
// answers the scenario, e.g. OPENAI_BASE_URL=… HERMES_MODEL=… for hermes-acp;
// cmd/hermes-acp's TestTypeScriptSDKConformance starts such a fake model).
// CONFORMANCE_SCENARIO overrides the scenario file; CONFORMANCE_TIMEOUT_MS
// (default 20000) bounds each step.
//
// The scenario: initialize → session/new → a prompt answered with text, a
// `todo` tool call and more text (end_turn, the text, the tool call, which
// names its tool, and its completion, a plan) → a prompt the model holds
// open, cancelled with session/cancel after the first chunk (cancelled) → a
// plain prompt
// (end_turn). The SDK validates every message from the agent with zod and
// reports a rejected one through console.error; any such report fails the
// run. Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import {
  agentText,
  check,
  failWith,
  joined,
  kinds,
  note,
  report,
  runTurn,
  sdkVersion,
  show,
  startAgent,
  step,
  stopAgent,
} from "./lib.mjs";

function checkToolTurn(sc, { stopReason, updates }) {
  check(stopReason === "end_turn", `tool prompt: stopReason ${show(stopReason)}, want "end_turn"`);
  const want = joined(sc.beforeTool) + joined(sc.afterTool);
  check(agentText(updates) === want, `tool prompt: agent text ${show(agentText(updates))}, want ${show(want)}`);

  const callIdx = updates.findIndex((u) => u.sessionUpdate === "tool_call" && u.toolCallId === sc.toolCallId);
  const doneIdx = updates.findIndex(
    (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === sc.toolCallId && u.status === "completed",
  );
  if (check(callIdx >= 0, `tool prompt: no tool_call with toolCallId ${show(sc.toolCallId)} (got ${kinds(updates)})`)) {
    check(typeof updates[callIdx].title === "string" && updates[callIdx].title !== "", "tool prompt: the tool_call has no title");
    // Editors group and filter tool calls by their programmatic name.
    check(updates[callIdx].name === sc.toolName, `tool prompt: the tool_call's name is ${show(updates[callIdx].name)}, want ${show(sc.toolName)}`);
  }
  check(doneIdx >= 0, `tool prompt: no tool_call_update with status "completed" for ${show(sc.toolCallId)}`);
  if (callIdx >= 0 && doneIdx >= 0) {
    check(callIdx < doneIdx, "tool prompt: the tool call completed before it started");
    const before = agentText(updates.slice(0, callIdx));
    const after = agentText(updates.slice(doneIdx + 1));
    check(before === joined(sc.beforeTool), `tool prompt: text before the tool call ${show(before)}, want ${show(joined(sc.beforeTool))}`);
    check(after === joined(sc.afterTool), `tool prompt: text after the tool call ${show(after)}, want ${show(joined(sc.afterTool))}`);
  }
  const plans = updates.filter((u) => u.sessionUpdate === "plan");
  if (check(plans.length > 0, "tool prompt: no plan update")) {
    const entries = plans.at(-1).entries.map((e) => e.content);
    check(show(entries) === show(sc.planEntries), `tool prompt: plan entries ${show(entries)}, want ${show(sc.planEntries)}`);
  }
  note(`prompt with a tool call: ${stopReason}; ${kinds(updates)}`);
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/run.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const scenarioPath =
    process.env.CONFORMANCE_SCENARIO || new URL("../cmd/hermes-acp/testdata/e2e/scenario.json", import.meta.url);
  const sc = JSON.parse(readFileSync(scenarioPath, "utf8"));

  const cwd = mkdtempSync(join(tmpdir(), "hermes-acp-conformance-"));
  let agentProc;
  try {
    agentProc = await startAgent(command, args);
  } catch (err) {
    process.stdout.write(`conformance FAILED: ${err.message}\n`);
    rmSync(cwd, { recursive: true, force: true });
    process.exit(1);
  }
  let permissions = 0;

  try {
    const app = acp
      .client({ name: "hermes-acp-conformance" })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        permissions++;
        const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      });

    await app.connectWith(agentProc.stream, async (agent) => {
      const init = await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-conformance", version: sdkVersion },
        }),
      );
      check(init.protocolVersion === 1, `initialize: protocolVersion ${show(init.protocolVersion)}, want 1`);
      check(init.agentInfo?.name === "hermes-acp", `initialize: agentInfo ${show(init.agentInfo)}, want name "hermes-acp"`);
      check(
        init.agentCapabilities?._meta?.hermes?.diagnostics === true,
        "initialize: agentCapabilities._meta.hermes.diagnostics is not true",
      );
      note(`initialize: ${init.agentInfo?.name} ${init.agentInfo?.version}, protocol ${init.protocolVersion}`);

      const session = await step("session/new", agent.buildSession(cwd).start());
      try {
        check(typeof session.sessionId === "string" && session.sessionId !== "", "session/new: empty sessionId");
        note(`session/new: ${session.sessionId}`);

        checkToolTurn(sc, await runTurn(session, "tool prompt", sc.toolPrompt));

        let cancelSent = false;
        const slow = await runTurn(session, "cancelled prompt", sc.slowPrompt, async (u) => {
          if (!cancelSent && u.sessionUpdate === "agent_message_chunk") {
            cancelSent = true;
            await step("session/cancel", agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId }));
          }
        });
        check(cancelSent, "cancelled prompt: no agent_message_chunk arrived, so session/cancel was never sent");
        check(slow.stopReason === "cancelled", `cancelled prompt: stopReason ${show(slow.stopReason)}, want "cancelled"`);
        const slowText = agentText(slow.updates);
        check(
          slowText !== "" && joined(sc.slowText).startsWith(slowText),
          `cancelled prompt: agent text ${show(slowText)}, want a non-empty prefix of ${show(joined(sc.slowText))}`,
        );
        note(`prompt cancelled after the first chunk: ${slow.stopReason}; ${kinds(slow.updates)}`);

        const plain = await runTurn(session, "plain prompt", sc.plainPrompt);
        check(plain.stopReason === "end_turn", `plain prompt: stopReason ${show(plain.stopReason)}, want "end_turn"`);
        check(
          agentText(plain.updates) === joined(sc.plainText),
          `plain prompt: agent text ${show(agentText(plain.updates))}, want ${show(joined(sc.plainText))}`,
        );
        note(`prompt after the cancel: ${plain.stopReason}; ${kinds(plain.updates)}`);
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
    rmSync(cwd, { recursive: true, force: true });
  }

  if (permissions > 0) note(`permission requests answered: ${permissions}`);
  report("conformance", command);
}

await main();
