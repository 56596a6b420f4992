#!/usr/bin/env node
// Unsupported terminal backend conformance (issue 24): the official ACP
// TypeScript SDK plays an editor against an agent whose config says
// terminal.backend: modal (hermes-agent's Modal sandbox, which hermes-acp
// does not have). A hostile model then tries to run things anyway:
//   fg:    terminal {command: "touch fg-ran"}
//   bg:    terminal {command: "touch bg-ran", background: true}
//   py:    execute_code {code: "open('py-ran', 'w')…"}
// Each is refused with an error naming the backend and what to set, and
// nothing runs on this machine instead (the marker files stay absent). The
// session offers the Terminal option with modal current; switching it to
// local runs the next command here (local-ran appears), so the refusals
// came from the backend and nothing else. The editor advertises
// session.notices: the first prompt starts with notice updates, one saying
// the backend is unavailable, and no notice text in the chat.
//
// Usage:
//   node conformance/unsupported_backend.mjs AGENT [ARGS...]
// Environment: BACKEND_WS (the workspace), CONFORMANCE_TRANSCRIPT; the
// agent's model follows the prompts "[ID] TOOL {arguments}"
// (cmd/hermes-acp's TestTypeScriptSDKUnsupportedBackend starts a fake one).

import { existsSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, finalOf, note, report, resultOf, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node conformance/unsupported_backend.mjs AGENT [ARGS...]");
  process.exit(2);
}
const ws = process.env.BACKEND_WS;
const prompt = (id, tool, a) => `[${id}] ${tool} ${JSON.stringify(a)}`;
const terminalOption = (opts) => (opts ?? []).find((o) => o.id === "terminal_backend");

try {
  const created = [];
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "unsupported_backend" });
  try {
    const app = acp
      .client({ name: "hermes-acp-unsupported-backend" })
      .onRequest(acp.methods.client.terminal.create, ({ params }) => {
        created.push(params);
        throw acp.RequestError.internalError("this editor runs no terminals in this test");
      })
      .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
        const once = params.options.find((o) => o.kind === "allow_once");
        return { outcome: once ? { outcome: "selected", optionId: once.optionId } : { outcome: "cancelled" } };
      });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: true, session: { notices: {} } },
          clientInfo: { name: "hermes-acp-unsupported-backend", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      const opt = terminalOption(session.newSessionResponse?.configOptions);
      check(opt && opt.currentValue === "modal" && show(opt.options.map((o) => o.value)) === show(["local", "modal"]),
        `session/new: Terminal option ${show(opt)}, want local and modal with modal current`);
      note("the session offers the Terminal option (local, modal), modal current");

      const attempts = [
        ["fg", "terminal", { command: "touch fg-ran" }, "fg-ran"],
        ["bg", "terminal", { command: "touch bg-ran", background: true }, "bg-ran"],
        ["py", "execute_code", { code: "open('py-ran', 'w').write('ran here')\nprint('wrote py-ran')" }, "py-ran"],
      ];
      for (const [i, [id, tool, a, marker]] of attempts.entries()) {
        const turn = await runTurn(session, id, prompt(id, tool, a));
        const notices = turn.updates.filter((u) => u.sessionUpdate === "notice");
        if (i === 0) {
          // The configuration notice names modal too (once per process);
          // the session's own says its backend is unavailable.
          const lastNoticeAt = turn.updates.findLastIndex((u) => u.sessionUpdate === "notice");
          const callAt = turn.updates.findIndex((u) => u.sessionUpdate === "tool_call");
          const backend = notices.find((u) => u.title === "Terminal backend unavailable");
          check(backend?.severity === "error" && backend.description?.includes("`modal` is unavailable") && lastNoticeAt < callAt,
            `${id}: the first prompt's notices ${show(notices)}, want an error notice before the tool call saying modal is unavailable`);
          check(!agentText(turn.updates).includes("⚠️"), `${id}: notice text in the chat of a client that takes notice updates: ${show(agentText(turn.updates))}`);
          note(`the first prompt began with the notices ${show(notices.map((u) => u.title))}: ${show(backend?.description)}`);
        } else {
          check(notices.length === 0, `${id}: notices again: ${show(notices)}`);
        }
        const r = resultOf(turn, id);
        const said = String(r?.error ?? "");
        check(said.includes('"modal"') && said.includes("refused") && said.includes("terminal.backend to local, docker or ssh"),
          `${id}: the model was told ${show(r)}, want the refusal naming modal and what to set`);
        check(finalOf(turn, `call_${id}`)?.status === "failed", `${id}: the tool call did not fail: ${show(finalOf(turn, `call_${id}`))}`);
        check(!existsSync(join(ws, marker)), `${id}: ${marker} exists: it ran on this machine`);
      }
      check(created.length === 0, `${created.length} editor terminals asked for; nothing may run here`);
      note("a foreground command, a background command and a script were each refused naming modal; none ran here");

      const res = await step("set_config_option",
        agent.request(acp.methods.agent.session.setConfigOption, { sessionId: session.sessionId, configId: "terminal_backend", value: "local" }));
      check(terminalOption(res?.configOptions)?.currentValue === "local", `set_config_option: ${show(terminalOption(res?.configOptions))}`);
      const turn = await runTurn(session, "local", prompt("local", "execute_code", { code: "open('local-ran', 'w').write('ran here')" }));
      check(resultOf(turn, "local")?.status === "success" && existsSync(join(ws, "local-ran")),
        `local: after switching to local the script did not run: ${show(resultOf(turn, "local"))}`);
      note("after switching the Terminal option to local the next script ran here");
      session.dispose?.();
    });
  } finally {
    await stopAgent(agentProc);
  }
} catch (err) {
  failWith(err);
}
process.exit(report("Unsupported terminal backend", [command, ...args].join(" ")));
