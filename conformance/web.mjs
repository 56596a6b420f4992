#!/usr/bin/env node
// Web tools conformance (issue 14): the official ACP TypeScript SDK plays an
// editor while a scripted model searches the web, reads the page it found
// and answers from it: web_search → web_extract → answer.
//
// Usage:
//   node conformance/web.mjs AGENT [ARGS...]
//
// The agent is started with AGENT ARGS --model script:FILE (a script this
// program writes). Environment:
//   WEB_E2E_PAGE_URL        the page the search finds (served by the test)
//   SEARXNG_URL             the SearXNG instance web_search asks (a fake
//                           the test serves; the agent reads it)
//   HERMES_HOME             its config.yaml sets web.allow_private_urls:
//                           true, since the test's page is on 127.0.0.1
//   CONFORMANCE_WORKDIR     an empty folder for the workspace and script
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Checks: both tool calls are announced with kind "fetch" and hermes's
// titles ("web search: <query>", "extract: <url>"), web_extract's
// announcement carries no content, both end "completed" with no content
// (hermes shows only failures), the model was sent the search results and
// the page's article as Markdown (the scripted model's expect lines check
// that), and the final answer quotes the page. Every SDK complaint fails
// the run. Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const query = "go channels tutorial";

function script(pageURL) {
  return JSON.stringify({
    replies: [
      { text: "Let me search.", tool_calls: [{ id: "call_search", name: "web_search", arguments: { query, limit: 3 } }] },
      {
        expect: { role: "tool", contains: pageURL },
        tool_calls: [{ id: "call_extract", name: "web_extract", arguments: { urls: [pageURL] } }],
      },
      {
        expect: { role: "tool", contains: "Channels are the pipes that connect concurrent goroutines" },
        text: `From ${pageURL}: channels are the pipes that connect concurrent goroutines.`,
      },
    ],
  });
}

async function play(command, args, workdir, transcript) {
  const pageURL = process.env.WEB_E2E_PAGE_URL;
  check(!!pageURL && !!process.env.SEARXNG_URL, "WEB_E2E_PAGE_URL and SEARXNG_URL must be set");
  const ws = join(workdir, "ws");
  mkdirSync(ws, { recursive: true });
  const scriptPath = join(workdir, "web.script.json");
  writeFileSync(scriptPath, script(pageURL));
  const app = acp.client({ name: "hermes-acp-web" });
  const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript, label: "web" });
  try {
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-web", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        const { stopReason, updates } = await runTurn(session, "search, extract, answer", "What are Go channels? Search the web.");
        check(stopReason === "end_turn", `stopReason ${show(stopReason)}, want "end_turn"`);
        const calls = updates.filter((u) => u.sessionUpdate === "tool_call");
        const byId = Object.fromEntries(calls.map((u) => [u.toolCallId, u]));
        const finals = {};
        for (const u of updates) {
          if (u.sessionUpdate === "tool_call_update" && ["completed", "failed"].includes(u.status)) finals[u.toolCallId] = u;
        }
        const want = [
          ["call_search", "web_search", `web search: ${query}`],
          ["call_extract", "web_extract", `extract: ${pageURL}`],
        ];
        for (const [id, name, title] of want) {
          const start = calls.find((u) => u.title === title);
          check(start !== undefined, `no tool_call titled ${show(title)}; titles: ${show(calls.map((u) => u.title))}`);
          if (!start) continue;
          check(start.kind === "fetch", `${name}: kind ${show(start.kind)}, want "fetch"`);
          const end = finals[start.toolCallId];
          check(end?.status === "completed", `${name}: ended ${show(end?.status)}, want "completed" (${String(show(end?.content ?? "")).slice(0, 300)})`);
          check(!end?.content || end.content.length === 0, `${name}: a success shows content ${String(show(end?.content)).slice(0, 200)}, want none (hermes shows only failures)`);
          note(`${name}: tool_call ${show(title)}, kind fetch → completed (${id})`);
        }
        const extract = calls.find((u) => u.title === `extract: ${pageURL}`);
        check(!extract?.content || extract.content.length === 0, `web_extract's tool_call carries content ${String(show(extract?.content)).slice(0, 200)}, want none`);
        check(Object.keys(byId).length === 2, `${Object.keys(byId).length} tool calls, want 2`);
        const text = agentText(updates);
        check(text.includes("channels are the pipes that connect concurrent goroutines"), `the answer ${show(text.slice(0, 300))} does not quote the page; the scripted model's expect failed?`);
        note(`search → extract → answer: ${show(text.slice(text.indexOf("From ")))}`);
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
    process.stderr.write("usage: node conformance/web.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const workdir = own ? mkdtempSync(join(tmpdir(), "hermes-web-")) : process.env.CONFORMANCE_WORKDIR;
  try {
    await play(command, args, workdir, process.env.CONFORMANCE_TRANSCRIPT);
  } catch (err) {
    failWith(err);
  } finally {
    if (own) rmSync(workdir, { recursive: true, force: true });
  }
  report("Web conformance", command);
}

main().catch((err) => {
  failWith(err);
  report("Web conformance", process.argv[2]);
});
