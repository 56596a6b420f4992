#!/usr/bin/env node
// Remote Docker daemon conformance (issue 18): the official ACP TypeScript
// SDK plays an editor against an agent whose config says terminal.backend:
// docker with terminal.docker.host a tcp:// daemon, and checks what an
// editor sees: /context names the remote daemon and that the workspace is
// copied; a command sees the workspace copied into the container (but not
// .env), and the file it writes and the file it deletes are written and
// deleted in the workspace; the tool call names the container and the
// copy.
//
// Usage:
//   node conformance/docker_remote.mjs AGENT [ARGS...]
// Environment: DOCKER_WS (the workspace, holding in.txt, gone.txt and
// .env), DOCKER_TCP (the daemon's address), CONFORMANCE_TRANSCRIPT; the
// agent's model follows the prompts "[ID] {terminal arguments}"
// (cmd/hermes-acp's TestTypeScriptSDKDockerRemote starts a fake one and
// a private dockerd).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";
import { contentText, finalOf, prompt, resultOf } from "./docker_lib.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node conformance/docker_remote.mjs AGENT [ARGS...]");
  process.exit(2);
}
const ws = process.env.DOCKER_WS;
const tcp = process.env.DOCKER_TCP;
try {
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "docker-remote" });
  try {
    const app = acp.client({ name: "hermes-acp-docker-remote" });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-docker-remote", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());

      const ctx = await runTurn(session, "context", "/context");
      const want = `Terminal: \`docker\` (remote daemon ${tcp}, workspace copied), available.`;
      check(agentText(ctx.updates).includes(want), `/context: ${show(agentText(ctx.updates).slice(-300))}, want ${show(want)}`);
      note("/context names the remote daemon and says the workspace is copied");

      const turn = await runTurn(session, "remote",
        prompt("remote", { command: "cat in.txt; test -e .env && echo ENV-IN-CONTAINER; echo made in the container > made.txt; rm gone.txt" }));
      const r = resultOf(turn, "remote");
      check(r && r.exit_code === 0 && String(r.output).includes("copied in"), `remote: the model was told ${show(r)}, want in.txt's text`);
      check(!String(r?.output).includes("ENV-IN-CONTAINER"), "remote: .env was copied into the container");
      const fin = finalOf(turn, "call_remote");
      const where = /Ran in docker container [0-9a-f]{12} \(image [^)]*, remote daemon [^)]*, workspace copied\)/.exec(contentText(fin));
      check(where, `remote: the tool call does not name the container and the copy: ${show(contentText(fin))}`);
      const made = join(ws, "made.txt");
      check(existsSync(made) && readFileSync(made, "utf8") === "made in the container\n", "remote: the file the container wrote is not in the workspace");
      check(!existsSync(join(ws, "gone.txt")), "remote: the file deleted in the container is still in the workspace");
      check(readFileSync(join(ws, ".env"), "utf8") === "SECRET=1\n", "remote: .env changed");
      note(`the command ran in the container (${show(where?.[0])}); its write and its deletion are in the workspace`);
      session.dispose?.();
    });
  } finally {
    await stopAgent(agentProc);
  }
} catch (err) {
  failWith(err);
}
process.exit(report("Remote Docker daemon terminal backend", [command, ...args].join(" ")));
