#!/usr/bin/env node
// Provider-switch conformance: the official ACP TypeScript SDK plays an
// editor while a session moves from an OpenAI-compatible model to an
// Anthropic one mid-conversation, completing a tool call on each.
//
// Usage:
//   node conformance/anthropic.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment; it must be configured
// with an OpenAI-compatible default model and the Anthropic model
// CONFORMANCE_ANTHROPIC_MODEL (default "anthropic:claude-e2e") among its
// model choices, both served by fake servers that answer a prompt holding
// "[openai]" or "[anthropic]" with a todo tool call and then a text that
// starts "<provider> done" (cmd/hermes-acp's TestTypeScriptSDKProviderSwitch
// starts them). Environment:
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// It checks: session/new offers the Anthropic model in the model config
// option; the first turn (OpenAI-compatible) completes its todo call and
// ends end_turn; session/set_config_option switches the model and answers
// with it as the current value; the second turn (Anthropic) streams the
// model's thinking as agent_thought_chunk before its answer, completes its
// todo call and ends end_turn; /context then names the anthropic provider.
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, playTurn, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const anthropicModel = process.env.CONFORMANCE_ANTHROPIC_MODEL || "anthropic:claude-e2e";

function modelOption(options) {
  return (options ?? []).find((o) => o.id === "model");
}

function optionValues(opt) {
  return (opt?.options ?? []).flatMap((o) => (o.options ? o.options : [o])).map((o) => o.value);
}

// playToolTurn runs a prompt whose model calls todo once and then answers.
async function playToolTurn(session, wire, name, text, want) {
  const turn = await playTurn(session, wire, name, text);
  check(turn.stopReason === "end_turn", `${name}: stopReason ${show(turn.stopReason)}, want "end_turn"`);
  const calls = turn.agent((e) => e.msg?.params?.update?.sessionUpdate === "tool_call");
  if (check(calls.length === 1, `${name}: ${calls.length} tool calls, want 1`)) {
    const id = calls[0].msg.params.update.toolCallId;
    const final = turn.finalUpdate(id);
    check(final?.msg.params.update.status === "completed", `${name}: the todo call ended ${show(final?.msg.params.update.status)}, want "completed"`);
  }
  check(turn.text().includes(want), `${name}: the reply ${show(turn.text())} does not say ${show(want)}`);
  return turn;
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/anthropic.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const ws = mkdtempSync(join(tmpdir(), "hermes-acp-anthropic-"));
  let agentProc;
  try {
    agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "anthropic" });
    await acp.client({ name: "hermes-acp-anthropic" }).connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-anthropic", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        const opt = modelOption(session.newSessionResponse?.configOptions);
        const values = optionValues(opt);
        check(values.includes(anthropicModel), `session/new: the model option offers ${show(values)}, want ${show(anthropicModel)} among them`);
        const first = opt?.currentValue;
        note(`session/new: model ${first}, choices ${values.join(", ")}`);

        await playToolTurn(session, agentProc.wire, "openai turn", "[openai] Plan the work with the todo tool.", "openai done");
        note("openai turn: todo completed, end_turn");

        const res = await step(
          "session/set_config_option",
          agent.request(acp.methods.agent.session.setConfigOption, { sessionId: session.sessionId, configId: "model", value: anthropicModel }),
        );
        check(modelOption(res?.configOptions)?.currentValue === anthropicModel, `session/set_config_option: current model ${show(modelOption(res?.configOptions)?.currentValue)}, want ${show(anthropicModel)}`);
        note(`session/set_config_option: switched from ${first} to ${anthropicModel}`);

        const turn = await playToolTurn(session, agentProc.wire, "anthropic turn", "[anthropic] Update the plan with the todo tool.", "anthropic done");
        const kinds = turn.updates.map((u) => u.sessionUpdate);
        const thought = kinds.indexOf("agent_thought_chunk");
        check(thought >= 0 && thought < kinds.indexOf("tool_call"), `anthropic turn: no agent_thought_chunk before the tool call (${show(kinds)})`);
        note("anthropic turn: thinking streamed, todo completed, end_turn");

        const ctx = await playTurn(session, agentProc.wire, "/context", "/context");
        check(ctx.text().includes("(anthropic)"), `/context: ${show(ctx.text())} does not name the anthropic provider`);
        check(ctx.text().includes("Prompt cache"), `/context: ${show(ctx.text())} has no prompt-cache line`);
        note("/context: names the anthropic provider and the prompt-cache hit ratio");
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    if (agentProc) await stopAgent(agentProc);
    rmSync(ws, { recursive: true, force: true });
  }
  report("Provider switch (OpenAI-compatible → Anthropic)", command);
}

await main();
