#!/usr/bin/env node
// Browser conformance: the official ACP TypeScript SDK plays an editor
// while a scripted model drives the browser tools against a local page:
// it opens the page, snapshots it, clicks a button by its ref and reads the
// changed text in a new snapshot.
//
// Usage:
//   node conformance/browser.mjs AGENT [ARGS...]
//
// The agent is started with ARGS plus "--model script:FILE". Environment:
//   CONFORMANCE_BROWSER_SCRIPT  the model's script (cmd/hermes-acp's
//                               TestTypeScriptSDKBrowser writes it)
//   CONFORMANCE_BROWSER_URL     the page the script opens
//   CONFORMANCE_WORKDIR         an empty folder for the workspace
//   CONFORMANCE_TRANSCRIPT      a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS      bound on each step (default 20000)
//
// Checked: the four tool calls (browser_navigate as kind fetch titled with
// the URL and showing its arguments as pretty JSON while it runs;
// browser_snapshot as kind read; browser_click; browser_snapshot) all
// complete, browser_vision (no vision model) fails with the screenshot
// shown as image content, and the model's answer, which the script gives only when the
// last snapshot showed the changed text, arrives. Exit status: 0 on
// success, 1 on any failure, 2 for usage errors.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const script = process.env.CONFORMANCE_BROWSER_SCRIPT;
  const url = process.env.CONFORMANCE_BROWSER_URL;
  const workdir = process.env.CONFORMANCE_WORKDIR;
  if (!command || !script || !url || !workdir) {
    process.stderr.write("usage: CONFORMANCE_BROWSER_SCRIPT=… CONFORMANCE_BROWSER_URL=… CONFORMANCE_WORKDIR=… node conformance/browser.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const ws = join(workdir, "ws");
  mkdirSync(ws, { recursive: true });
  const agentProc = await startAgent(command, [...args, "--model", `script:${script}`], {
    transcript: process.env.CONFORMANCE_TRANSCRIPT,
    label: "browser",
  });
  try {
    const app = acp.client({ name: "hermes-acp-browser" }).onRequest(acp.methods.client.session.requestPermission, () => ({
      outcome: { outcome: "cancelled" },
    }));
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-browser", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        const turn = await runTurn(session, "browse", "Open the page, press the button and tell me what it says.");
        const starts = turn.updates.filter((u) => u.sessionUpdate === "tool_call");
        const finals = new Map();
        for (const u of turn.updates) {
          if (u.sessionUpdate === "tool_call_update" && u.status) finals.set(u.toolCallId, u.status);
        }
        const names = starts.map((s) => `${s.kind}:${s.title}`);
        check(
          show(names) === show([`fetch:${url}`, "read:snapshot", "execute:browser_click", "read:snapshot", "read:analyze page: Is the text red?"]),
          `tool calls ${show(names)}, want navigate (fetch, the URL), snapshot (read), click (execute), snapshot (read), vision (read)`,
        );
        const nav = starts[0];
        const preview = nav?.content?.[0]?.content?.text;
        check(preview === JSON.stringify({ url }, null, 2), `browser_navigate's start content is ${show(preview)}, want the pretty JSON of its arguments`);
        for (const s of starts.slice(0, 4)) {
          check(finals.get(s.toolCallId) === "completed", `${s.title}: ended ${show(finals.get(s.toolCallId))}, want completed`);
        }
        // Without a vision model the call fails, and the editor is shown
        // the screenshot as image content.
        const vision = starts[4];
        check(finals.get(vision?.toolCallId) === "failed", `browser_vision ended ${show(finals.get(vision?.toolCallId))}, want failed (no vision model)`);
        const images = turn.updates
          .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === vision?.toolCallId)
          .flatMap((u) => u.content ?? [])
          .filter((c) => c.type === "content" && c.content?.type === "image");
        check(
          images.length === 1 && images[0].content.mimeType === "image/png" && Buffer.from(images[0].content.data, "base64").subarray(1, 4).toString() === "PNG",
          `browser_vision's tool call shows ${images.length} images, want the PNG screenshot`,
        );
        const text = agentText(turn.updates);
        check(text === "The page now says: Changed!", `the model's answer is ${show(text)}, want the changed text (the script answers only when the last snapshot shows it)`);
        check(turn.stopReason === "end_turn", `stop reason ${show(turn.stopReason)}, want end_turn`);
        note(`navigate, snapshot, click, snapshot: ${show(text)}`);
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
  }
  report("browser", command);
}

await main();
