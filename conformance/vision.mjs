#!/usr/bin/env node
// Vision conformance: the official ACP TypeScript SDK plays an editor that
// attaches an image to a prompt and asks about a workspace image, against a
// model (scripted by cmd/hermes-acp's TestTypeScriptSDKVision) that must
// receive each image as an image part.
//
// Usage:
//   node conformance/vision.mjs AGENT [ARGS...]
//
// Environment:
//   VISION_WS               the session's cwd; holds shot.png
//   VISION_PHASES           comma-separated phases, run in order, one
//                           session each, on one agent process:
//     prompt   initialize says promptCapabilities.image; a prompt "What is in
//              this picture?" with shot.png attached (image content, its
//              base64) ends with the model's "I see a red square."
//     tool     the prompt "Look at shot.png" makes the model call
//              vision_analyze on shot.png; the editor sees the call titled
//              "analyze image: What colour is the square?", kind "read",
//              completed, and the model's final "red square" answer.
//     noimage  the model cannot see images: initialize does not advertise
//              image prompts, and a prompt with shot.png attached is refused
//              in the chat ("cannot see images") with stopReason end_turn.
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const phaseNames = ["prompt", "tool", "noimage"];

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const ws = process.env.VISION_WS;
  const phases = (process.env.VISION_PHASES ?? "").split(",").filter(Boolean);
  if (!command || !ws || phases.length === 0 || phases.some((p) => !phaseNames.includes(p))) {
    process.stderr.write(`usage: VISION_WS=DIR VISION_PHASES=${phaseNames.join("|")}[,…] node conformance/vision.mjs AGENT [ARGS...]\n`);
    process.exit(2);
  }
  const png = readFileSync(join(ws, "shot.png")).toString("base64");
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: `vision ${phases}` });
  try {
    const app = acp.client({ name: "hermes-acp-vision" });
    await app.connectWith(agentProc.stream, async (agent) => {
      const init = await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-vision", version: sdkVersion },
        }),
      );
      const image = init.agentCapabilities?.promptCapabilities?.image;
      for (const phase of phases) {
        const session = await step(`${phase}: session/new`, agent.buildSession(ws).start());
        try {
          if (phase === "prompt") {
            check(image === true, `prompt: promptCapabilities.image ${show(image)}, want true`);
            const turn = await runTurn(session, "prompt", [
              { type: "text", text: "What is in this picture?" },
              { type: "image", mimeType: "image/png", data: png },
            ]);
            check(turn.stopReason === "end_turn", `prompt: stopReason ${show(turn.stopReason)}, want "end_turn"`);
            const said = agentText(turn.updates);
            check(said.includes("I see a red square."), `prompt: agent text ${show(said)}, want the model's answer to the image`);
            note(`prompt: attached PNG (${png.length} base64 chars) answered ${show(said)}`);
          } else if (phase === "tool") {
            const turn = await runTurn(session, "tool", "Look at shot.png");
            check(turn.stopReason === "end_turn", `tool: stopReason ${show(turn.stopReason)}, want "end_turn"`);
            const start = turn.updates.find((u) => u.sessionUpdate === "tool_call");
            if (check(start !== undefined, `tool: no tool_call; updates ${show(turn.updates.map((u) => u.sessionUpdate))}`)) {
              check(start.title === "analyze image: What colour is the square?", `tool: title ${show(start.title)}`);
              check(start.kind === "read", `tool: kind ${show(start.kind)}, want "read"`);
              const end = turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === start.toolCallId && u.status).at(-1);
              check(end?.status === "completed", `tool: the call ended ${show(end?.status)}, want "completed": ${show(end)}`);
              const shown = show(end?.content ?? []);
              check(shown.includes("A red square."), `tool: the completion does not show the analysis: ${shown}`);
            }
            const said = agentText(turn.updates);
            check(said.includes("red square"), `tool: agent text ${show(said)}, want the model's answer from the analysis`);
            note(`tool: ${show(start?.title)} (${show(start?.kind)}) then ${show(said)}`);
          } else {
            check(image === false, `noimage: promptCapabilities.image ${show(image)}, want false`);
            const turn = await runTurn(session, "noimage", [
              { type: "text", text: "What is in this picture?" },
              { type: "image", mimeType: "image/png", data: png },
            ]);
            check(turn.stopReason === "end_turn", `noimage: stopReason ${show(turn.stopReason)}, want "end_turn"`);
            const said = agentText(turn.updates);
            check(said.includes("cannot see images") && said.includes("nothing was sent"), `noimage: agent text ${show(said)}, want the refusal`);
            check(!turn.updates.some((u) => u.sessionUpdate === "tool_call"), `noimage: a tool ran for a refused prompt`);
            note(`noimage: refused with ${show(said.slice(0, 80))}…`);
          }
        } finally {
          session.dispose();
        }
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
  }
  report(`vision conformance (${phases})`, command);
}

await main();
