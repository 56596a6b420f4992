#!/usr/bin/env node
// clarify conformance (issue #28, item 4): the official ACP TypeScript SDK
// plays an editor that shows forms (clientCapabilities.elicitation.form)
// while the scripted model asks the user questions with hermes's clarify
// tool, and an editor without forms that is never asked.
//
// Usage:
//   node conformance/clarify.mjs AGENT [ARGS...]
//
// Each connection starts its own agent process with AGENT ARGS --model
// script:FILE, FILE a script this program writes. Environment:
//   CONFORMANCE_WORKDIR     an empty folder for workspaces and scripts
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Connection "forms", one session, four prompts:
//   answer: clarify with two choices; the form (elicitation/create, mode
//     form, tied to the session and the tool call) offers "SQLite
//     (Recommended)", "Postgres" and "Other (type your answer)"; the editor
//     picks Other and types "DuckDB"; the model reads user_response
//     "DuckDB" (its script's expect checks the tool result).
//   decline: an open question; the editor declines; the model reads
//     "[user declined the clarification]".
//   cancel: the editor holds the form; session/cancel → the agent sends
//     $/cancel_request for the elicitation (the handler's signal aborts),
//     the prompt ends "cancelled";
//   after: the next prompt ends end_turn.
// Connection "plain" (no elicitation capability): the model calls clarify
// anyway; nothing is sent to the editor and the model reads an error.
// No permission request is made on either connection. Every SDK complaint
// fails the run. Exit status: 0 on success, 1 on any failure, 2 for usage
// errors.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent, agentText } from "./lib.mjs";

const other = "Other (type your answer)";

const scripts = {
  forms: {
    replies: [
      { tool_calls: [{ name: "clarify", id: "call_answer", arguments: { question: "Which database?", choices: ["SQLite", "Postgres"] } }] },
      { expect: { role: "tool", contains: '"user_response":"DuckDB"' }, text: "Using DuckDB." },
      { tool_calls: [{ name: "clarify", id: "call_decline", arguments: { question: "Which port?" } }] },
      { expect: { role: "tool", contains: '"user_response":"[user declined the clarification]"' }, text: "I will pick 8080." },
      { tool_calls: [{ name: "clarify", id: "call_cancel", arguments: { question: "Which license?", choices: ["MIT", "Apache-2.0"] } }] },
      { text: "still here after the cancel." },
    ],
  },
  plain: {
    replies: [
      { tool_calls: [{ name: "clarify", id: "call_plain", arguments: { question: "Which database?", choices: ["SQLite", "Postgres"] } }] },
      { expect: { role: "tool", contains: "not enabled in this session" }, text: "No forms here." },
    ],
  },
};

async function play(command, args, name, workdir, transcript) {
  const ws = join(workdir, name);
  mkdirSync(ws, { recursive: true });
  const scriptPath = join(workdir, `${name}.script.yaml`);
  writeFileSync(scriptPath, JSON.stringify(scripts[name])); // JSON is YAML

  const forms = []; // every elicitation/create, with how it ended
  const permissions = [];
  let answer = () => ({ action: "decline" });
  const app = acp
    .client({ name: "hermes-acp-clarify" })
    .onRequest(acp.methods.client.elicitation.create, async ({ params, signal }) => {
      const form = { params, withdrawn: false };
      forms.push(form);
      return await answer(params, signal, form);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: "cancelled" } };
    });

  const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript, label: name });
  try {
    await app.connectWith(agentProc.stream, async (agent) => {
      const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };
      if (name === "forms") clientCapabilities.elicitation = { form: {} };
      await step(
        `${name}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities,
          clientInfo: { name: "hermes-acp-clarify", version: sdkVersion },
        }),
      );
      const session = await step(`${name}: session/new`, agent.buildSession(ws).start());
      const sid = session.sessionId;
      try {
        if (name === "plain") {
          const turn = await runTurn(session, "plain", "[plain] ask me");
          check(turn.stopReason === "end_turn", `plain: stopReason ${show(turn.stopReason)}, want "end_turn"`);
          check(agentText(turn.updates).includes("No forms here."), `plain: the model did not read the error; it said ${show(agentText(turn.updates))}`);
          check(forms.length === 0, `plain: ${forms.length} elicitation/create to an editor without forms`);
          note("plain: an editor without forms is never sent elicitation/create; a clarify call anyway reads as not enabled");
          return;
        }

        // answer: Other with a typed answer
        answer = (params) => ({ action: "accept", content: { answer: other, other_answer: "DuckDB" } });
        let turn = await runTurn(session, "answer", "[answer] pick a database");
        check(turn.stopReason === "end_turn", `answer: stopReason ${show(turn.stopReason)}, want "end_turn"`);
        check(agentText(turn.updates).includes("Using DuckDB."), `answer: the model did not read "DuckDB"; it said ${show(agentText(turn.updates))}`);
        const f = forms[0]?.params;
        if (check(f !== undefined, "answer: no elicitation/create")) {
          check(f.mode === "form" && f.sessionId === sid && f.toolCallId === "call_answer", `answer: form scope ${show({ mode: f.mode, sessionId: f.sessionId, toolCallId: f.toolCallId })}`);
          check(f.message === "Which database?", `answer: form message ${show(f.message)}`);
          const field = f.requestedSchema?.properties?.answer;
          check(show(field?.enum) === show(["SQLite (Recommended)", "Postgres", other]), `answer: form choices ${show(field?.enum)}`);
          check(f.requestedSchema?.properties?.other_answer?.type === "string", `answer: no other_answer text field: ${show(f.requestedSchema)}`);
          check(show(f.requestedSchema?.required) === show(["answer"]), `answer: required ${show(f.requestedSchema?.required)}`);
        }
        const call = turn.updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_answer");
        const done = turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_answer").at(-1);
        check(call !== undefined && done?.status === "completed", `answer: the clarify call was not shown and completed: ${show(done)}`);
        note('answer: elicitation/create (form, tied to the tool call) offered "SQLite (Recommended)", "Postgres", "Other"; Other + "DuckDB" reached the model');

        // decline: an open question
        answer = () => ({ action: "decline" });
        turn = await runTurn(session, "decline", "[decline] pick a port");
        check(turn.stopReason === "end_turn", `decline: stopReason ${show(turn.stopReason)}, want "end_turn"`);
        check(agentText(turn.updates).includes("I will pick 8080."), `decline: the model did not read the decline; it said ${show(agentText(turn.updates))}`);
        const open = forms[1]?.params?.requestedSchema?.properties?.answer;
        check(open?.type === "string" && open?.enum === undefined && open?.maxLength === 4000, `decline: open question field ${show(open)}`);
        note("decline: an open question's form declined → the model read [user declined the clarification]");

        // cancel: the form is open when the turn is cancelled
        let opened;
        const isOpen = new Promise((resolve) => {
          opened = resolve;
        });
        answer = (params, signal, form) =>
          new Promise((resolve) => {
            opened();
            signal.addEventListener("abort", () => {
              form.withdrawn = true;
              resolve({ action: "cancel" });
            });
          });
        const cancelTurn = runTurn(session, "cancel", "[cancel] pick a license");
        await step("cancel: the form opens", isOpen);
        await agent.notify(acp.methods.agent.session.cancel, { sessionId: sid });
        turn = await cancelTurn;
        check(turn.stopReason === "cancelled", `cancel: stopReason ${show(turn.stopReason)}, want "cancelled"`);
        check(forms[2]?.withdrawn === true, "cancel: the open form was not withdrawn ($/cancel_request) when the turn was cancelled");
        note("cancel: session/cancel with the form open → $/cancel_request withdrew it, stopReason cancelled");

        answer = () => ({ action: "decline" });
        turn = await runTurn(session, "after", "[after] are you there?");
        check(turn.stopReason === "end_turn" && agentText(turn.updates).includes("still here after the cancel."), `after: the next prompt ended ${show(turn.stopReason)} saying ${show(agentText(turn.updates))}`);
        check(forms.length === 3, `forms: ${forms.length} elicitation/create, want 3`);
        check(permissions.length === 0, `forms: ${permissions.length} permission requests, want none (clarify is not an approval)`);
        note("after: the next prompt → end_turn; no permission request on the way");
      } finally {
        session.dispose?.();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/clarify.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const workdir = own ? mkdtempSync(join(tmpdir(), "hermes-clarify-")) : process.env.CONFORMANCE_WORKDIR;
  try {
    for (const name of Object.keys(scripts)) {
      try {
        await play(command, args, name, workdir, process.env.CONFORMANCE_TRANSCRIPT);
      } catch (err) {
        failWith(err);
      }
    }
  } finally {
    if (own) rmSync(workdir, { recursive: true, force: true });
  }
  report("clarify conformance", command);
}

main().catch((err) => {
  failWith(err);
  report("clarify conformance", process.argv[2]);
});
