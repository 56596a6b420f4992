#!/usr/bin/env node
// Result conformance: the official ACP TypeScript SDK plays two clients
// against an agent whose model follows cmd/hermes-acp/testdata/e2e/results.txtar,
// and checks what the model is told about edits and large results.
//
// Usage:
//   node conformance/results.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment; it must talk to a model
// that plays the scenario (cmd/hermes-acp's TestTypeScriptSDKResults starts a
// fake one). Environment:
//   CONFORMANCE_SCENARIO    the txtar scenario (default: the one above)
//   CONFORMANCE_WORKDIR     an empty folder for the workspaces (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Two connections. The first ("readonly") advertises fs.readTextFile but not
// fs.writeTextFile, and keeps the workspace's files open in buffers that it
// never reloads, as an editor that has not yet noticed a change on disk. On
// it the model creates a file with write_file and edits two files with patch
// (replace and V4A modes), each allowed once: every call completes, the
// model is told of success with no post-write verification failure, no
// fs/write_text_file is sent, and the disk holds the edits. The second
// ("budget") has no fs capability and opens two sessions in two workspaces;
// in both at once the model runs a search whose result is over the
// per-result budget, under the same tool call id: each session's model sees
// a <persisted-output> note naming its own saved file, and the two files
// differ and each holds that session's result.
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import {
  agentText,
  check,
  fail,
  failWith,
  loadScenario,
  note,
  playTurn,
  report,
  runTurn,
  sdkVersion,
  show,
  startAgent,
  step,
  stopAgent,
} from "./lib.mjs";

const update = (e) => e?.msg?.params?.update;

const readOr = (p, fallback) => {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return fallback;
  }
};

// said returns what the model was told by the tool of step id, as its reply
// quotes it, or undefined.
function said(text, id) {
  const prefix = `${id} done; the tool said: `;
  const at = text.indexOf(prefix);
  return at < 0 ? undefined : text.slice(at + prefix.length);
}

// client returns an SDK client app. With buffers it advertises reading
// only: reads are served from the buffers (the disk for other files), and a
// write request is a failure.
function client(name, buffers, log) {
  let app = acp.client({ name }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    log.permissions.push(params);
    const allow = params.options.find((o) => o.optionId === "allow");
    if (!allow) {
      fail(`session/request_permission offers no "allow" option: ${show(params.options)}`);
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: "allow" } };
  });
  if (!buffers) return app;
  return app
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      log.reads.push(params.path);
      const text = buffers.get(params.path) ?? readOr(params.path, undefined);
      if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
      return { content: text };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      fail(`fs/write_text_file ${show(params.path)} sent to a client that does not advertise writeTextFile`);
      return {};
    });
}

async function playReadOnly(command, args, steps, files, ws, transcript) {
  mkdirSync(ws, { recursive: true });
  const buffers = new Map();
  for (const [name, data] of files) {
    if (!name.startsWith("disk/")) continue;
    const p = join(ws, name.slice("disk/".length));
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, data);
    buffers.set(p, data); // open in the editor; never reloaded
  }
  const log = { permissions: [], reads: [] };
  const agentProc = await startAgent(command, args, { transcript, label: "readonly" });
  try {
    await client("hermes-acp-results", buffers, log).connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-results", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        for (const st of steps) {
          const asked = log.permissions.length;
          const turn = await playTurn(session, agentProc.wire, st.id, st.prompt);
          const callId = `call_${st.id}`;
          check(turn.stopReason === "end_turn", `${st.id}: stopReason ${show(turn.stopReason)}, want "end_turn"`);
          const status = update(turn.finalUpdate(callId))?.status;
          check(status === "completed", `${st.id}: the tool call ended ${show(status)}, want "completed"`);
          check(log.permissions.length === asked + 1, `${st.id}: ${log.permissions.length - asked} permission requests, want 1`);
          check(turn.requests("fs/write_text_file").length === 0, `${st.id}: the agent sent fs/write_text_file`);
          const result = said(turn.text(), st.id);
          if (check(result !== undefined, `${st.id}: the model's reply ${show(turn.text())} does not quote the tool result`)) {
            check(!/verification failed/i.test(result), `${st.id}: the model was told ${show(result)}`);
            check(!result.includes('"error"'), `${st.id}: the model was told of an error: ${show(result)}`);
          }
          note(`${st.id}: ${status}; the model saw ${show(result?.slice(0, 80))}…`);
        }
      } finally {
        session.dispose();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
  for (const [rel, want] of [
    ["new.txt", "written to the disk\n"],
    ["f.txt", "one\n2\nthree\n"],
    ["g.txt", "alpha\ngamma\n"],
  ]) {
    const got = readOr(join(ws, rel), undefined);
    check(got === want, `readonly: the disk's ${rel} holds ${show(got)}, want ${show(want)}`);
  }
  check(log.reads.length > 0, "readonly: the agent never read through the editor, although the client can read");
}

// bigFile returns a file of 600 lines of about 260 characters, each
// starting with marker: a search result of ~160,000 characters.
function bigFile(marker) {
  const lines = [];
  for (let i = 0; i < 600; i++) lines.push(`${marker} line ${String(i).padStart(4, "0")} ${"x".repeat(240)}`);
  return lines.join("\n") + "\n";
}

async function playBudget(command, args, st, workdir, transcript) {
  const sessions = [
    { marker: "SESSION-A", ws: join(workdir, "budget-a") },
    { marker: "SESSION-B", ws: join(workdir, "budget-b") },
  ];
  for (const s of sessions) {
    mkdirSync(s.ws, { recursive: true });
    writeFileSync(join(s.ws, "big.txt"), bigFile(s.marker));
  }
  const log = { permissions: [], reads: [] };
  const agentProc = await startAgent(command, args, { transcript, label: "budget" });
  try {
    await client("hermes-acp-results", null, log).connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-results", version: sdkVersion },
        }),
      );
      for (const s of sessions) s.session = await step(`session/new ${s.marker}`, agent.buildSession(s.ws).start());
      try {
        // Both sessions at once: the two results are saved concurrently.
        const turns = await Promise.all(sessions.map((s) => runTurn(s.session, `${st.id} ${s.marker}`, st.prompt)));
        const paths = [];
        sessions.forEach((s, i) => {
          const name = `${st.id} ${s.marker}`;
          check(turns[i].stopReason === "end_turn", `${name}: stopReason ${show(turns[i].stopReason)}, want "end_turn"`);
          const result = said(agentText(turns[i].updates), st.id);
          if (!check(result !== undefined, `${name}: the model's reply does not quote the tool result`)) return;
          check(result.startsWith("<persisted-output>"), `${name}: the model saw ${show(result.slice(0, 200))}, want a <persisted-output> note`);
          check(result.length < 5000, `${name}: the model saw ${result.length} characters, want a short note`);
          const m = /^Full output saved to: (.+)$/m.exec(result);
          if (!check(m !== null, `${name}: the note names no saved file: ${show(result.slice(0, 300))}`)) return;
          const path = m[1];
          paths.push(path);
          const saved = readOr(path, undefined);
          if (check(saved !== undefined, `${name}: the saved file ${path} cannot be read`)) {
            const other = sessions[1 - i].marker;
            check(saved.includes(`${s.marker} line 0599`), `${name}: ${path} lacks this session's last line`);
            check(!saved.includes(other), `${name}: ${path} holds ${other}'s result`);
          }
          note(`${name}: the model saw a ${result.length}-character note naming ${path}`);
        });
        check(paths.length !== 2 || paths[0] !== paths[1], `both sessions' results were saved as ${paths[0]}`);
      } finally {
        for (const s of sessions) s.session?.dispose();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/results.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const scenarioPath = process.env.CONFORMANCE_SCENARIO || new URL("../cmd/hermes-acp/testdata/e2e/results.txtar", import.meta.url);
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-results-"));
  const transcript = process.env.CONFORMANCE_TRANSCRIPT;
  try {
    const { scenario, files } = loadScenario(scenarioPath);
    const readonly = scenario.steps.filter((s) => s.client === "readonly");
    const big = scenario.steps.find((s) => s.client === "budget");
    check(readonly.length > 0 && big !== undefined, "the scenario needs readonly steps and a budget step");
    await playReadOnly(command, args, readonly, files, join(workdir, "readonly"), transcript);
    if (big) await playBudget(command, args, big, workdir, transcript);
  } catch (err) {
    failWith(err);
  } finally {
    if (!given && existsSync(workdir)) rmSync(workdir, { recursive: true, force: true });
  }
  report("results conformance", command);
}

await main();
