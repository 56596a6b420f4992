#!/usr/bin/env node
// delegate_task conformance (issue 16, item 2): the official ACP TypeScript
// SDK plays an editor while the scripted model delegates a batch of three
// tasks, and checks what the editor sees of the children.
//
// Usage:
//   node conformance/delegate.mjs AGENT [ARGS...]
//
// Each scenario starts its own agent process with AGENT ARGS --model
// script:FILE, where FILE is a script this program writes: the session's
// replies and, under "conversations", one conversation per child chosen by
// its goal (the scripted model of docs/configuration.md). Environment:
//   CONFORMANCE_WORKDIR     an empty folder for workspaces and scripts
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Scenarios, each in a fresh session of a client without fs capabilities:
//   batch: delegate_task with three tasks; each child writes its own file,
//     which asks the editor for approval. The editor holds every permission
//     request until all three children have asked, so the batch only
//     finishes if the children run concurrently; their tool calls (titled
//     "[n] …", _meta.hermes.parentToolCallId = the delegate_task call) are
//     all announced before any of them ends. The editor allows a.txt and
//     b.txt and rejects c.txt: a and b are written, c is unchanged. Each
//     child's summary reaches the session's model (its reply's expect
//     checks the delegate_task result), and the delegate_task call ends
//     with the children's final status list.
//   cancel: delegate_task with three tasks whose children's model takes a
//     minute to answer. When the delegate_task call shows the three
//     children running, the editor sends session/cancel: the prompt ends
//     "cancelled", the delegate_task call fails, no file is written, and the
//     next prompt ends end_turn.
//
// Every SDK complaint fails the run. Exit status: 0 on success, 1 on any
// failure, 2 for usage errors.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, fail, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const letters = ["a", "b", "c"];

const scenarios = {
  batch: {
    script: () => ({
      replies: [
        {
          tool_calls: [
            {
              name: "delegate_task",
              id: "call_delegate",
              arguments: { tasks: letters.map((l) => ({ goal: `Write ${l}.txt`, context: `Put "${l} new" in ${l}.txt.` })) },
            },
          ],
        },
        {
          expect: { role: "tool", matches: "(?s)summary of a.*summary of b.*summary of c" },
          text: "All three children reported.",
        },
      ],
      conversations: letters.map((l) => ({
        match: { contains: `Write ${l}.txt` },
        replies: [
          { tool_calls: [{ name: "write_file", arguments: { path: `${l}.txt`, content: `${l} new\n` } }] },
          { expect: { role: "tool" }, text: `summary of ${l}: the write was answered.` },
        ],
      })),
    }),
  },
  cancel: {
    script: () => ({
      replies: [
        {
          tool_calls: [
            { name: "delegate_task", id: "call_delegate", arguments: { tasks: letters.map((l) => ({ goal: `Slowly write ${l}.txt` })) } },
          ],
        },
        { text: "still here after the cancel." },
      ],
      conversations: letters.map((l) => ({
        match: { contains: `Slowly write ${l}.txt` },
        replies: [
          { delay: "60s", tool_calls: [{ name: "write_file", arguments: { path: `${l}.txt`, content: `${l} new\n` } }] },
          { text: `summary of ${l}` },
        ],
      })),
    }),
  },
};

const textOf = (u) => (u.content ?? []).map((c) => c.content?.text ?? "").join("\n");
const parentOf = (u) => u._meta?.hermes?.parentToolCallId;

async function play(command, args, name, workdir, transcript) {
  const sc = scenarios[name];
  const ws = join(workdir, name);
  mkdirSync(ws, { recursive: true });
  for (const l of letters) writeFileSync(join(ws, `${l}.txt`), `${l} old\n`);
  const scriptPath = join(workdir, `${name}.script.yaml`);
  writeFileSync(scriptPath, JSON.stringify(sc.script())); // JSON is YAML

  // Permission requests are held until all three children have asked.
  const held = [];
  let releaseAll;
  const allAsked = new Promise((resolve) => {
    releaseAll = resolve;
  });
  const app = acp.client({ name: "hermes-acp-delegate" }).onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    held.push(params);
    if (held.length === letters.length) releaseAll();
    await allAsked;
    if (name !== "batch") return { outcome: { outcome: "cancelled" } };
    const title = params.toolCall?.title ?? "";
    const reject = title.includes("c.txt");
    return { outcome: { outcome: "selected", optionId: reject ? "reject" : "allow" } };
  });

  const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript, label: name });
  try {
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        `${name}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-delegate", version: sdkVersion },
        }),
      );
      const session = await step(`${name}: session/new`, agent.buildSession(ws).start());
      try {
        const updates = [];
        let cancelled = false;
        session.prompt(`[${name}] delegate three tasks`).catch(() => {});
        let stop;
        for (;;) {
          const message = await step(`${name}: session/prompt`, session.nextUpdate());
          if (message.kind === "stop") {
            stop = message.stopReason;
            break;
          }
          const u = message.update;
          updates.push(u);
          if (
            name === "cancel" &&
            !cancelled &&
            u.sessionUpdate === "tool_call_update" &&
            u.toolCallId === "call_delegate" &&
            textOf(u).includes("3 running")
          ) {
            cancelled = true;
            agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId }).catch((err) => fail(`${name}: session/cancel: ${err}`));
            releaseAll(); // nothing should be waiting, but never hold a request past the cancel
          }
        }
        const childCalls = updates.filter((u) => u.sessionUpdate === "tool_call" && parentOf(u) === "call_delegate");
        const childEnds = updates.filter(
          (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId !== "call_delegate" && ["completed", "failed"].includes(u.status),
        );
        const final = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_delegate" && ["completed", "failed"].includes(u.status)).at(-1);
        const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
        if (name === "batch") {
          check(stop === "end_turn", `batch: stopReason ${show(stop)}, want "end_turn"`);
          check(held.length === 3, `batch: ${held.length} permission requests, want 3 (one per child)`);
          const titles = childCalls.map((u) => u.title).sort();
          check(
            show(titles) === show(letters.map((l, i) => `[${i + 1}] write: ${l}.txt`)),
            `batch: child tool calls ${show(titles)}, want [1] write: a.txt, [2] write: b.txt, [3] write: c.txt`,
          );
          // Interleaving: every child's call is announced before any ends.
          const lastStart = Math.max(...childCalls.map((u) => updates.indexOf(u)));
          const firstEnd = Math.min(...childEnds.map((u) => updates.indexOf(u)));
          check(childCalls.length === 3 && childEnds.length === 3 && lastStart < firstEnd, `batch: the children's tool calls did not interleave: ${show(updates.map((u) => `${u.sessionUpdate}:${u.toolCallId ?? ""}:${u.status ?? ""}`))}`);
          for (const p of held) {
            check(p.toolCall?.title?.match(/^\[[123]\] Approve edit: /), `batch: permission title ${show(p.toolCall?.title)}`);
            check(p.toolCall?._meta?.hermes?.parentToolCallId === "call_delegate", `batch: permission _meta ${show(p.toolCall?._meta)}`);
          }
          for (const l of letters) {
            const want = l === "c" ? `${l} old\n` : `${l} new\n`;
            check(readFileSync(join(ws, `${l}.txt`), "utf8") === want, `batch: ${l}.txt = ${show(readFileSync(join(ws, `${l}.txt`), "utf8"))}, want ${show(want)}`);
          }
          check(text.includes("All three children reported."), `batch: the session's model did not read the three summaries; it said ${show(text.slice(0, 400))}`);
          const board = final ? textOf(final) : "";
          check(final?.status === "completed" && board.includes("summary of a") && board.includes("3 done of 3") && board.includes("3 of 3 tasks completed"), `batch: delegate_task ended ${show(final)}`);
          note("batch: three children ran concurrently (all three asked for approval before any was answered); their tool calls interleaved under the delegate_task call");
          note("batch: a.txt and b.txt written after allow, c.txt unchanged after reject; the three summaries reached the session's model");
        } else {
          check(cancelled, `cancel: the delegate_task call never showed three running children`);
          check(stop === "cancelled", `cancel: stopReason ${show(stop)}, want "cancelled"`);
          check(final?.status === "failed", `cancel: delegate_task ended ${show(final?.status)}, want "failed"`);
          check(held.length === 0, `cancel: ${held.length} permission requests after the cancel`);
          for (const l of letters) check(readFileSync(join(ws, `${l}.txt`), "utf8") === `${l} old\n`, `cancel: ${l}.txt changed`);
          const board = final ? textOf(final) : "";
          check(board === "" || !board.includes("running"), `cancel: children still shown running: ${show(board)}`);
          const after = [];
          session.prompt("[cancel] are you there?").catch(() => {});
          let again;
          for (;;) {
            const message = await step(`${name}: prompt after the cancel`, session.nextUpdate());
            if (message.kind === "stop") {
              again = message.stopReason;
              break;
            }
            after.push(message.update);
          }
          const said = after.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
          check(again === "end_turn" && said.includes("still here after the cancel"), `cancel: the next prompt ended ${show(again)} saying ${show(said.slice(0, 300))}`);
          note("cancel: session/cancel while three children wait on the model → stopReason cancelled, delegate_task failed, nothing written; the next prompt → end_turn");
        }
      } finally {
        releaseAll();
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
    process.stderr.write("usage: node conformance/delegate.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const workdir = own ? mkdtempSync(join(tmpdir(), "hermes-delegate-")) : process.env.CONFORMANCE_WORKDIR;
  try {
    for (const name of Object.keys(scenarios)) {
      try {
        await play(command, args, name, workdir, process.env.CONFORMANCE_TRANSCRIPT);
      } catch (err) {
        failWith(err);
      }
    }
  } finally {
    if (own) rmSync(workdir, { recursive: true, force: true });
  }
  report("delegate_task conformance", command);
}

main().catch((err) => {
  failWith(err);
  report("delegate_task conformance", process.argv[2]);
});
