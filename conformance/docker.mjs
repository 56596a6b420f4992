#!/usr/bin/env node
// Docker terminal backend conformance (issue 18): the official ACP
// TypeScript SDK plays an editor (with terminals) against an agent whose
// config says terminal.backend: docker, and checks what an editor sees: the
// session offers the Terminal config option with docker current; a command
// runs in the session's container (not in an editor terminal), the tool
// call names the container, and a file it writes appears in the workspace
// (and /undo, allowed, removes it: checkpoints, issue 29);
// switching the option to local runs the next command in an editor
// terminal.
//
// Usage:
//   node conformance/docker.mjs AGENT [ARGS...]
// Environment: DOCKER_WS (the workspace), CONFORMANCE_TRANSCRIPT; the
// agent's model follows the prompts "[ID] {terminal arguments}"
// (cmd/hermes-acp's TestTypeScriptSDKDocker starts a fake one and a
// private dockerd).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";
import { contentText, finalOf, prompt, resultOf, terminalOption } from "./docker_lib.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node conformance/docker.mjs AGENT [ARGS...]");
  process.exit(2);
}
const ws = process.env.DOCKER_WS;

try {
  const created = [];
  const rewinds = [];
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "docker" });
  try {
    const app = acp
      .client({ name: "hermes-acp-docker" })
      .onRequest(acp.methods.client.terminal.create, ({ params }) => {
        created.push(params);
        throw acp.RequestError.internalError("this editor runs no terminals in this test");
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        // Only /undo asks here (checkpoints, issue 29).
        if (params.options.some((o) => o.optionId === "rewind")) {
          rewinds.push(params);
          return { outcome: { outcome: "selected", optionId: "rewind" } };
        }
        check(false, `unexpected session/request_permission: ${show(params.toolCall?.title)}`);
        return { outcome: { outcome: "cancelled" } };
      });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: true },
          clientInfo: { name: "hermes-acp-docker", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      const opt = terminalOption(session.newSessionResponse?.configOptions);
      check(opt && opt.currentValue === "docker" && show(opt.options.map((o) => o.value)) === show(["local", "docker"]),
        `session/new: Terminal option ${show(opt)}, want local and docker with docker current`);
      note("the session offers the Terminal config option (local, docker), docker current");

      const turn = await runTurn(session, "indocker", prompt("indocker", { command: "echo made in the container > made.txt; tr '\\0' ' ' < /proc/1/cmdline" }));
      const r = resultOf(turn, "indocker");
      check(r && r.exit_code === 0 && String(r.output).includes("while :; do sleep 3600; done"), `indocker: the model was told ${show(r)}, want the container's pid 1`);
      check(created.length === 0, `indocker: ${created.length} editor terminals created; the command belongs in the container`);
      const fin = finalOf(turn, "call_indocker");
      const where = /Ran in docker container [0-9a-f]{12} \(image [^)]*\)/.exec(contentText(fin));
      check(where, `indocker: the tool call does not name the container: ${show(contentText(fin))}`);
      const file = join(ws, "made.txt");
      check(existsSync(file) && readFileSync(file, "utf8") === "made in the container\n", "indocker: the file the container wrote is not in the workspace");
      note(`the command ran in the container (${show(where?.[0])}); the file it wrote is in the workspace`);

      // Checkpoints (issue 29): the workspace is bind-mounted, so the turn's
      // checkpoints saw what the container wrote; /undo removes it.
      const undo = await runTurn(session, "/undo", "/undo");
      check(rewinds.length === 1, `/undo: ${rewinds.length} rewind permission requests, want 1`);
      check(!existsSync(file), `/undo: made.txt is still in the workspace (${show(undo.updates.length)} updates)`);
      note("/undo removed the file the container wrote through the bind mount");

      const res = await step("set_config_option",
        agent.request(acp.methods.agent.session.setConfigOption, { sessionId: session.sessionId, configId: "terminal_backend", value: "local" }));
      check(terminalOption(res?.configOptions)?.currentValue === "local", `set_config_option: ${show(terminalOption(res?.configOptions))}`);
      await runTurn(session, "inlocal", prompt("inlocal", { command: "echo here" }));
      check(created.length === 1, `inlocal: ${created.length} editor terminals asked for, want the local command in one`);
      note("after switching the Terminal option to local the next command went to the editor's terminal");
      session.dispose?.();
    });
  } finally {
    await stopAgent(agentProc);
  }
} catch (err) {
  failWith(err);
}
process.exit(report("Docker terminal backend", [command, ...args].join(" ")));
