#!/usr/bin/env node
// Browser URL policy conformance (issue 26): the official ACP TypeScript
// SDK plays an editor that rejects every permission request while a
// hostile scripted model drives the browser tools against a local page
// whose script reaches for a refused address (web.deny: 127.0.0.2/32) with
// fetch, an image, a popup and a worker, and for a local file outside the
// workspace; the model then asks for that file itself, through
// browser_navigate, browser_cdp Target.createTarget and browser_cdp
// DOM.setFileInputFiles.
//
// Usage:
//   node conformance/browser_policy.mjs AGENT [ARGS...]
//
// The agent is started with ARGS plus "--model script:FILE". Environment:
//   CONFORMANCE_BROWSER_SCRIPT  the model's script (cmd/hermes-acp's
//                               TestTypeScriptSDKBrowserPolicy writes it)
//   CONFORMANCE_CANARY          the local file outside the workspace
//   CONFORMANCE_WORKDIR         an empty folder for the workspace
//   CONFORMANCE_TRANSCRIPT      a file to append every JSON-RPC line to
//
// Checked (in what the editor is shown; the script's expect fields check
// what the model is told, the worker's refusal included): the page's
// navigation completes and shows the refused requests; browser_console
// awaits the page's promise and shows fetch refused; browser_console lists
// the refusals of the image, the fetch and the popup;
// the file URL is refused by browser_navigate and by browser_cdp without
// a permission request; DOM.setFileInputFiles asks once, naming the file
// as outside the workspace, and fails when rejected; the page's file input
// stays empty; no update shows the canary's text; the turn ends. The Go
// test checks that the refused server got no request and that the canary
// text is nowhere in the transcript. Exit status: 0 on success, 1 on any
// failure, 2 for usage errors.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, callUpdates, check, failWith, finalOf, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const script = process.env.CONFORMANCE_BROWSER_SCRIPT;
  const canary = process.env.CONFORMANCE_CANARY;
  const workdir = process.env.CONFORMANCE_WORKDIR;
  if (!command || !script || !canary || !workdir) {
    process.stderr.write("usage: CONFORMANCE_BROWSER_SCRIPT=… CONFORMANCE_CANARY=… CONFORMANCE_WORKDIR=… node conformance/browser_policy.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const ws = join(workdir, "ws");
  mkdirSync(ws, { recursive: true });
  const permissions = [];
  const agentProc = await startAgent(command, [...args, "--model", `script:${script}`], {
    transcript: process.env.CONFORMANCE_TRANSCRIPT,
    label: "browser-policy",
  });
  try {
    const app = acp.client({ name: "hermes-acp-browser-policy" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const reject = params.options.find((o) => o.kind === "reject_once");
      check(reject !== undefined, `session/request_permission offers no reject option: ${show(params.options)}`);
      return { outcome: { outcome: "selected", optionId: reject?.optionId ?? "reject" } };
    });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-browser-policy", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        const turn = await runTurn(session, "hostile browse", "Open the page and read what it fetched.");
        const starts = turn.updates.filter((u) => u.sessionUpdate === "tool_call");
        const names = starts.map((s) => s.title);
        check(starts.length === 7, `tool calls ${show(names)}, want the script's seven`);
        // What the editor was shown of each call's result (the script's
        // expect fields check what the model was told).
        const out = (i) => {
          const id = starts[i]?.toolCallId;
          const f = finalOf(turn, id);
          return { status: f?.status, raw: show([f?.content ?? [], f?.rawOutput ?? null]) };
        };
        const nav = out(0);
        check(nav.status === "completed" && nav.raw.includes("Refused by the URL policy") && nav.raw.includes("in web.deny (127.0.0.2/32)"),
          `browser_navigate of the page: ${nav.status} ${nav.raw.slice(0, 400)}, want completed, reporting the refused requests`);
        const awaited = out(1);
        check(awaited.status === "completed" && awaited.raw.includes("TypeError"),
          `browser_console awaiting the page's results: ${awaited.status} ${awaited.raw.slice(0, 400)}, want the refused fetch's TypeError`);
        const consoleOut = out(2);
        for (const want of ["/popup", "/img.png", "/fetch"]) {
          check(consoleOut.raw.includes(want), `browser_console's blocked_requests lack ${want}: ${consoleOut.raw.slice(0, 600)}`);
        }
        const fileNav = out(3);
        check(fileNav.status === "failed" && fileNav.raw.includes("opens no local URLs"), `browser_navigate of the file: ${fileNav.status} ${fileNav.raw}, want refused`);
        const createTarget = out(4);
        check(createTarget.status === "failed" && createTarget.raw.includes("Blocked: file://"), `browser_cdp Target.createTarget of the file: ${createTarget.status} ${createTarget.raw}, want blocked`);
        const upload = out(5);
        check(upload.status === "failed" && upload.raw.includes("was not approved"), `browser_cdp DOM.setFileInputFiles rejected: ${upload.status} ${upload.raw}, want not approved`);
        check(permissions.length === 1, `${permissions.length} permission requests (${show(permissions.map((p) => p.toolCall?.title))}), want one: DOM.setFileInputFiles's`);
        const asked = permissions[0];
        const askedText = show(asked?.toolCall?.content ?? []);
        check(asked?.toolCall?.title?.includes("DOM.setFileInputFiles") && askedText.includes(canary) && askedText.includes("outside the workspace"),
          `the permission request ${show(asked?.toolCall)} does not name the file as outside the workspace`);
        const input = out(6);
        check(input.status === "completed" && input.raw.includes("**result**: 0"), `the page's file input after the rejection: ${input.raw}, want no file`);
        for (const s of starts) {
          for (const u of callUpdates(turn, s.toolCallId)) {
            check(!show(u).includes("CANARY-TEXT"), `an update of ${s.title} shows the canary's text`);
          }
        }
        check(agentText(turn.updates) === "Nothing reached the refused server.", `the model's answer is ${show(agentText(turn.updates))}`);
        check(turn.stopReason === "end_turn", `stop reason ${show(turn.stopReason)}, want end_turn`);
        note(`${starts.length} tool calls, ${permissions.length} permission request, refusals reported`);
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
  }
  report("browser-policy", command);
}

await main();
