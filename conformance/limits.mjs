#!/usr/bin/env node
// Limits conformance (issue 9, item 5): the official ACP TypeScript SDK plays
// an editor while a hostile scripted model makes the agent do unbounded
// work, and checks that the work is bounded and that session/cancel is
// answered within 1 s whatever is running.
//
// Usage:
//   node conformance/limits.mjs AGENT [ARGS...]
//
// Each scenario starts its own agent process with AGENT ARGS --model
// script:FILE, where FILE is a script this program writes (the scripted
// model of docs/configuration.md). Environment:
//   CONFORMANCE_WORKDIR     an empty folder for workspaces and scripts
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Scenarios, each in a fresh session of a client without fs capabilities:
//   over-limits: patch with a 2 000-line old_string against a 20 000-line
//     file. The similarity strategies are skipped, so the tool answers at
//     once; the model reads the limit and what to do instead; end_turn.
//   fuzzy-cancel: patch with a 95-line old_string, under the limits, that
//     nearly matches every window of a 5 000-line file (seconds of
//     similarity matching on this machine). An edit's tool_call is
//     announced only with its diff, so the client sends session/cancel
//     300 ms after session/prompt; the prompt must end "cancelled" within
//     1 s of it, the file must be unchanged, and the next prompt must end
//     end_turn.
//   toml-cancel: write_file of a TOML file whose table header has 24 000
//     parts (48 KB; its lint took 31 s before the limits). The client
//     sends session/cancel 200 ms after the tool_call and answers any
//     permission request "cancelled"; the prompt must end "cancelled"
//     within 1 s, nothing may be written, and a permission request, if one
//     came, must show the lint-limit warning; the next prompt ends end_turn.
//
// Each elapsed time is printed in the summary. Every SDK complaint fails the
// run. Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, fail, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// cancelWithin is the user-visible contract of the issue: a cancel is
// answered within 1 s whatever is running.
const cancelWithin = 1000;

// similarLines returns n lines alike enough that every pair of them needs a
// full similarity ratio (as in tools/fuzzy_limits_test.go).
function similarLines(prefix, n, mod) {
  let s = "";
  for (let i = 0; i < n; i++) s += `\t${prefix}${i} := compute(a, b, ${i % mod}) // step\n`;
  return s;
}

// longSimilarLines is similarLines with longer lines: each similarity
// ratio costs more.
function longSimilarLines(prefix, n, mod) {
  let s = "";
  for (let i = 0; i < n; i++) s += `\t${prefix}${i} := compute(alpha, beta, gamma, delta, ${i % mod}) // one step of the long computation\n`;
  return s;
}

const scenarios = [
  {
    name: "over-limits",
    file: "big.go",
    content: "package big\n\nfunc f() {\n" + similarLines("x", 20000, 7) + "}\n",
    call: (abs) => ({ name: "patch", arguments: { mode: "replace", path: abs, old_string: similarLines("y", 2000, 5), new_string: "\tdone()\n" } }),
    modelSees: ["old_string is 2001 lines", "limited to old_string of 400 lines", "V4A patch"],
  },
  {
    name: "fuzzy-cancel",
    file: "big.go",
    content: "package big\n\nfunc f() {\n" + longSimilarLines("x", 5000, 7) + "}\n",
    call: (abs) => ({ name: "patch", arguments: { mode: "replace", path: abs, old_string: longSimilarLines("y", 95, 5), new_string: "\tdone()\n" } }),
    cancel: { after: "prompt", ms: 300 },
  },
  {
    name: "toml-cancel",
    file: "deep.toml",
    content: null, // the file does not exist; the model creates it
    call: (abs) => ({ name: "write_file", arguments: { path: abs, content: "[" + "a.".repeat(24000) + "b]\nx = 1\n" } }),
    cancel: { after: "tool_call", ms: 200 },
  },
];

// script is the scripted model of one scenario: the hostile call, then a
// plain answer (to the tool result, or to the prompt after a cancel).
function script(sc, abs) {
  const first = { tool_calls: [{ ...sc.call(abs), id: `call_${sc.name}` }] };
  const second = sc.cancel ? { text: `${sc.name}: still here after the cancel.` } : { expect: { role: "tool", contains: sc.modelSees[0] }, text: `${sc.name}: I read the limit.` };
  // JSON is YAML; the script provider reads either.
  return JSON.stringify({ replies: [first, second] });
}

async function play(command, args, sc, workdir, transcript) {
  const ws = join(workdir, sc.name);
  mkdirSync(ws, { recursive: true });
  const abs = join(ws, sc.file);
  if (sc.content !== null) writeFileSync(abs, sc.content);
  const scriptPath = join(workdir, `${sc.name}.script.yaml`);
  writeFileSync(scriptPath, script(sc, abs));

  let cancelAt = null; // performance.now() when session/cancel was sent
  let sendCancel = null;
  const cancelSent = new Promise((resolve) => {
    sendCancel = resolve;
  });
  const permissions = [];
  const app = acp.client({ name: "hermes-acp-limits" }).onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    permissions.push(params);
    if (!sc.cancel) {
      fail(`${sc.name}: unexpected session/request_permission for ${show(params.toolCall?.title)}`);
      return { outcome: { outcome: "selected", optionId: "reject" } };
    }
    await cancelSent; // hold the request until the cancel, as a user who walked away
    return { outcome: { outcome: "cancelled" } };
  });

  const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript, label: sc.name });
  try {
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        `${sc.name}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-limits", version: sdkVersion },
        }),
      );
      const session = await step(`${sc.name}: session/new`, agent.buildSession(ws).start());
      try {
        const started = performance.now();
        let toolCallAt = null;
        let timer = null;
        const arm = () => {
          timer = setTimeout(() => {
            cancelAt = performance.now();
            agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId }).catch((err) => fail(`${sc.name}: session/cancel: ${err}`));
            sendCancel();
          }, sc.cancel.ms);
        };
        const updates = [];
        session.prompt(`[${sc.name}]`).catch(() => {});
        if (sc.cancel?.after === "prompt") arm();
        let stop;
        for (;;) {
          const message = await step(`${sc.name}: session/prompt`, session.nextUpdate());
          if (message.kind === "stop") {
            stop = message.stopReason;
            break;
          }
          updates.push(message.update);
          if (message.update.sessionUpdate === "tool_call" && toolCallAt === null) {
            toolCallAt = performance.now();
            if (sc.cancel?.after === "tool_call") arm();
          }
        }
        const stoppedAt = performance.now();
        clearTimeout(timer);
        sendCancel(); // release a permission request still held (a failed run)
        const final = updates.filter((u) => u.sessionUpdate === "tool_call_update" && ["completed", "failed"].includes(u.status)).at(-1);
        if (sc.cancel) {
          check(cancelAt !== null, `${sc.name}: the prompt ended (${show(stop)}) before session/cancel was sent`);
          check(stop === "cancelled", `${sc.name}: stopReason ${show(stop)}, want "cancelled"`);
          if (cancelAt !== null) {
            const latency = stoppedAt - cancelAt;
            check(latency < cancelWithin, `${sc.name}: the prompt ended ${latency.toFixed(0)} ms after session/cancel, want < ${cancelWithin} ms`);
            note(`${sc.name}: session/cancel (${sc.cancel.ms} ms after the ${sc.cancel.after}) → stopReason "${stop}" in ${latency.toFixed(0)} ms`);
          }
          if (sc.content !== null) {
            check(readFileSync(abs, "utf8") === sc.content, `${sc.name}: ${abs} changed after a cancelled patch`);
          } else {
            check(!existsSync(abs), `${sc.name}: ${abs} was written after a cancelled write_file`);
          }
          for (const p of permissions) {
            check(JSON.stringify(p).includes("lint-limit"), `${sc.name}: the permission request does not show the lint-limit warning: ${show(p.toolCall?._meta).slice(0, 300)}`);
          }
          if (permissions.length > 0) note(`${sc.name}: the permission request showed the lint-limit warning`);
        } else {
          check(stop === "end_turn", `${sc.name}: stopReason ${show(stop)}, want "end_turn"`);
          check(final?.status === "failed", `${sc.name}: the patch ended ${show(final?.status)}, want "failed" (no match)`);
          const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
          check(text.includes(`${sc.name}: I read the limit.`), `${sc.name}: the model did not see ${show(sc.modelSees[0])} in the tool result; it said ${show(text.slice(0, 300))}`);
          const shown = JSON.stringify(final ?? {});
          for (const s of sc.modelSees) check(shown.includes(s), `${sc.name}: the failed tool call does not show ${show(s)}`);
          check(readFileSync(abs, "utf8") === sc.content, `${sc.name}: ${abs} changed after a failed patch`);
          note(`${sc.name}: prompt → end_turn in ${(stoppedAt - started).toFixed(0)} ms; the model read the limit and what to do instead`);
        }

        if (sc.cancel) {
          const after = [];
          session.prompt(`[${sc.name} again]`).catch(() => {});
          let again;
          for (;;) {
            const message = await step(`${sc.name}: prompt after the cancel`, session.nextUpdate());
            if (message.kind === "stop") {
              again = message.stopReason;
              break;
            }
            after.push(message.update);
          }
          const text = after.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
          check(again === "end_turn", `${sc.name}: the prompt after the cancel ended ${show(again)}, want "end_turn"`);
          check(text.includes("still here after the cancel"), `${sc.name}: the prompt after the cancel said ${show(text.slice(0, 300))}`);
          note(`${sc.name}: the next prompt → ${again}`);
        }
      } finally {
        sendCancel();
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
    process.stderr.write("usage: node conformance/limits.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const workdir = own ? mkdtempSync(join(tmpdir(), "hermes-limits-")) : process.env.CONFORMANCE_WORKDIR;
  try {
    for (const sc of scenarios) {
      try {
        await play(command, args, sc, workdir, process.env.CONFORMANCE_TRANSCRIPT);
      } catch (err) {
        failWith(err);
      }
    }
  } finally {
    if (own) rmSync(workdir, { recursive: true, force: true });
  }
  report("Limits conformance", command);
}

main().catch((err) => {
  failWith(err);
  report("Limits conformance", process.argv[2]);
});
