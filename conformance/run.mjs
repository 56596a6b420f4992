#!/usr/bin/env node
// Conformance run: the official ACP TypeScript SDK (@agentclientprotocol/sdk)
// drives an ACP agent through the scenario in
// cmd/hermes-acp/testdata/e2e/scenario.json and checks what an editor built
// on that SDK would see.
//
// Usage:
//   node conformance/run.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment (point it at a model that
// answers the scenario, e.g. OPENAI_BASE_URL=… HERMES_MODEL=… for hermes-acp;
// cmd/hermes-acp's TestTypeScriptSDKConformance starts such a fake model).
// CONFORMANCE_SCENARIO overrides the scenario file; CONFORMANCE_TIMEOUT_MS
// (default 20000) bounds each step.
//
// The scenario: initialize → session/new → a prompt answered with text, a
// `todo` tool call and more text (end_turn, the text, the tool call and its
// completion, a plan) → a prompt the model holds open, cancelled with
// session/cancel after the first chunk (cancelled) → a plain prompt
// (end_turn). The SDK validates every message from the agent with zod and
// reports a rejected one through console.error; any such report fails the
// run. Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { format } from "node:util";
import * as acp from "@agentclientprotocol/sdk";

// Everything the SDK logs through console.error / console.warn is a
// complaint about the agent's messages (schema rejections, responses to
// unknown requests, broken connections): record it, and fail at the end.
const sdkComplaints = [];
for (const level of ["error", "warn"]) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    sdkComplaints.push(`console.${level}: ${format(...args)}`);
    original(...args);
  };
}

const failures = [];
const summary = [];

function check(ok, message) {
  if (!ok) failures.push(message);
  return ok;
}

class Fatal extends Error {}

function fatal(message) {
  throw new Fatal(message);
}

const show = (v) => JSON.stringify(v);

const stepTimeout = Number(process.env.CONFORMANCE_TIMEOUT_MS || 20000);

// step awaits promise, failing the run if it takes longer than stepTimeout.
async function step(name, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Fatal(`${name}: no answer within ${stepTimeout} ms`)), stepTimeout);
  });
  try {
    return await Promise.race([promise, timeout]);
  } catch (err) {
    if (err instanceof Fatal) throw err;
    throw new Fatal(`${name}: ${describe(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

function describe(err) {
  if (err instanceof acp.RequestError) {
    return `JSON-RPC error ${err.code}: ${err.message}${err.data === undefined ? "" : " " + show(err.data)}`;
  }
  return err instanceof Error ? err.message : String(err);
}

// runTurn sends a prompt and collects the session's updates, in order,
// until the turn stops. onUpdate sees each update as it arrives.
async function runTurn(session, name, text, onUpdate = () => {}) {
  const updates = [];
  session.prompt(text).catch(() => {}); // the stop (or error) also arrives through nextUpdate
  for (;;) {
    const message = await step(`${name}: session/prompt`, session.nextUpdate());
    if (message.kind === "stop") {
      return { stopReason: message.stopReason, updates };
    }
    updates.push(message.update);
    await onUpdate(message.update);
  }
}

function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
}

function kinds(updates) {
  const counts = {};
  for (const u of updates) counts[u.sessionUpdate] = (counts[u.sessionUpdate] ?? 0) + 1;
  return Object.entries(counts)
    .map(([k, n]) => `${k}×${n}`)
    .join(", ");
}

const joined = (parts) => parts.join("");

function checkToolTurn(sc, { stopReason, updates }) {
  check(stopReason === "end_turn", `tool prompt: stopReason ${show(stopReason)}, want "end_turn"`);
  const want = joined(sc.beforeTool) + joined(sc.afterTool);
  check(agentText(updates) === want, `tool prompt: agent text ${show(agentText(updates))}, want ${show(want)}`);

  const callIdx = updates.findIndex((u) => u.sessionUpdate === "tool_call" && u.toolCallId === sc.toolCallId);
  const doneIdx = updates.findIndex(
    (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === sc.toolCallId && u.status === "completed",
  );
  if (check(callIdx >= 0, `tool prompt: no tool_call with toolCallId ${show(sc.toolCallId)} (got ${kinds(updates)})`)) {
    check(typeof updates[callIdx].title === "string" && updates[callIdx].title !== "", "tool prompt: the tool_call has no title");
  }
  check(doneIdx >= 0, `tool prompt: no tool_call_update with status "completed" for ${show(sc.toolCallId)}`);
  if (callIdx >= 0 && doneIdx >= 0) {
    check(callIdx < doneIdx, "tool prompt: the tool call completed before it started");
    const before = agentText(updates.slice(0, callIdx));
    const after = agentText(updates.slice(doneIdx + 1));
    check(before === joined(sc.beforeTool), `tool prompt: text before the tool call ${show(before)}, want ${show(joined(sc.beforeTool))}`);
    check(after === joined(sc.afterTool), `tool prompt: text after the tool call ${show(after)}, want ${show(joined(sc.afterTool))}`);
  }
  const plans = updates.filter((u) => u.sessionUpdate === "plan");
  if (check(plans.length > 0, "tool prompt: no plan update")) {
    const entries = plans.at(-1).entries.map((e) => e.content);
    check(show(entries) === show(sc.planEntries), `tool prompt: plan entries ${show(entries)}, want ${show(sc.planEntries)}`);
  }
  summary.push(`prompt with a tool call: ${stopReason}; ${kinds(updates)}`);
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/run.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const scenarioPath =
    process.env.CONFORMANCE_SCENARIO || new URL("../cmd/hermes-acp/testdata/e2e/scenario.json", import.meta.url);
  const sc = JSON.parse(readFileSync(scenarioPath, "utf8"));
  const sdkVersion = JSON.parse(
    readFileSync(new URL("./node_modules/@agentclientprotocol/sdk/package.json", import.meta.url), "utf8"),
  ).version;

  const cwd = mkdtempSync(join(tmpdir(), "hermes-acp-conformance-"));
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], env: process.env });
  const exited = new Promise((resolve) => {
    child.on("error", (err) => resolve({ code: null, signal: null, error: err }));
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  child.stdin.on("error", () => {}); // an agent that exits early: reported through `exited`
  try {
    await new Promise((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (err) {
    process.stdout.write(`conformance FAILED: cannot start the agent ${show(command)}: ${err.message}\n`);
    rmSync(cwd, { recursive: true, force: true });
    process.exit(1);
  }
  let permissions = 0;

  try {
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    const app = acp
      .client({ name: "hermes-acp-conformance" })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        permissions++;
        const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      });

    await app.connectWith(stream, async (agent) => {
      const init = await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-conformance", version: sdkVersion },
        }),
      );
      check(init.protocolVersion === 1, `initialize: protocolVersion ${show(init.protocolVersion)}, want 1`);
      check(init.agentInfo?.name === "hermes-acp", `initialize: agentInfo ${show(init.agentInfo)}, want name "hermes-acp"`);
      check(
        init.agentCapabilities?._meta?.hermes?.diagnostics === true,
        "initialize: agentCapabilities._meta.hermes.diagnostics is not true",
      );
      summary.push(`initialize: ${init.agentInfo?.name} ${init.agentInfo?.version}, protocol ${init.protocolVersion}`);

      const session = await step("session/new", agent.buildSession(cwd).start());
      try {
        check(typeof session.sessionId === "string" && session.sessionId !== "", "session/new: empty sessionId");
        summary.push(`session/new: ${session.sessionId}`);

        checkToolTurn(sc, await runTurn(session, "tool prompt", sc.toolPrompt));

        let cancelSent = false;
        const slow = await runTurn(session, "cancelled prompt", sc.slowPrompt, async (u) => {
          if (!cancelSent && u.sessionUpdate === "agent_message_chunk") {
            cancelSent = true;
            await step("session/cancel", agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId }));
          }
        });
        check(cancelSent, "cancelled prompt: no agent_message_chunk arrived, so session/cancel was never sent");
        check(slow.stopReason === "cancelled", `cancelled prompt: stopReason ${show(slow.stopReason)}, want "cancelled"`);
        const slowText = agentText(slow.updates);
        check(
          slowText !== "" && joined(sc.slowText).startsWith(slowText),
          `cancelled prompt: agent text ${show(slowText)}, want a non-empty prefix of ${show(joined(sc.slowText))}`,
        );
        summary.push(`prompt cancelled after the first chunk: ${slow.stopReason}; ${kinds(slow.updates)}`);

        const plain = await runTurn(session, "plain prompt", sc.plainPrompt);
        check(plain.stopReason === "end_turn", `plain prompt: stopReason ${show(plain.stopReason)}, want "end_turn"`);
        check(
          agentText(plain.updates) === joined(sc.plainText),
          `plain prompt: agent text ${show(agentText(plain.updates))}, want ${show(joined(sc.plainText))}`,
        );
        summary.push(`prompt after the cancel: ${plain.stopReason}; ${kinds(plain.updates)}`);
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failures.push(err instanceof Fatal ? err.message : `unexpected error: ${err?.stack ?? err}`);
  } finally {
    child.stdin.end();
    let timer;
    const status = await Promise.race([
      exited,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(null), 5000);
      }),
    ]);
    clearTimeout(timer);
    if (status === null) {
      failures.push("the agent did not exit within 5 s of its stdin closing");
      child.kill("SIGKILL");
    } else if (status.error) {
      failures.push(`could not start the agent ${show(command)}: ${status.error.message}`);
    } else if (status.code !== 0) {
      failures.push(`the agent exited with ${status.signal ? "signal " + status.signal : "status " + status.code}, want 0`);
    }
    rmSync(cwd, { recursive: true, force: true });
  }

  if (permissions > 0) summary.push(`permission requests answered: ${permissions}`);
  for (const c of sdkComplaints) failures.push(`the SDK rejected or reported an agent message: ${c}`);
  if (failures.length > 0) {
    process.stdout.write(`conformance FAILED (@agentclientprotocol/sdk ${sdkVersion}, ${command}):\n`);
    for (const f of failures) process.stdout.write(`  ✗ ${f}\n`);
    process.exit(1);
  }
  process.stdout.write(`conformance OK (@agentclientprotocol/sdk ${sdkVersion}, ${command}):\n`);
  for (const s of summary) process.stdout.write(`  ✓ ${s}\n`);
  process.stdout.write("  ✓ no agent message rejected by the SDK's schema validation\n");
}

await main();
