#!/usr/bin/env node
// Edit-approval conformance: the official ACP TypeScript SDK plays an editor
// against an agent whose model follows cmd/hermes-acp/testdata/e2e/edits.txtar,
// and checks what an editor would see when the model edits files.
//
// Usage:
//   node conformance/edits.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment; it must talk to a model
// that plays the scenario (cmd/hermes-acp's TestTypeScriptSDKEdits starts a
// fake one). Environment:
//   CONFORMANCE_SCENARIO    the txtar scenario (default: the one above)
//   CONFORMANCE_WORKDIR     an empty folder for the workspaces (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Two connections. The first advertises fs.readTextFile/writeTextFile and
// serves files from in-memory buffers (falling back to the disk for reads);
// its write handler is the only writer of a file. On it the model: creates a
// file ("Allow edit": diff with oldText null, permission request with the
// three options, fs/write_text_file with exactly the content, completed, and
// nothing on disk); overwrites a file the user rejects (nothing written, the
// call fails, the model reads the denial); writes outside the workspace
// twice (refused before any permission request, nothing written anywhere);
// reads a file whose unsaved buffer differs from the disk (the model sees
// the buffer); and edits twice after "Allow all edits this session"
// (current_mode_update to accept_edits, the second edit is not asked). The
// second connection has no fs capability: an allowed edit replaces the file
// on disk atomically (new inode, mode kept, no temporary file left).
//
// Every step is checked on the wire (order of the messages as they crossed
// the pipe) and through the SDK's handlers; every SDK complaint fails the
// run. Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import {
  check,
  fail,
  failWith,
  inOrder,
  isUpdate,
  loadScenario,
  note,
  playTurn,
  report,
  sdkVersion,
  show,
  startAgent,
  step,
  stopAgent,
} from "./lib.mjs";

// The options of an edit approval, exactly as hermes-acp offers them.
const editOptions = [
  { optionId: "allow", name: "Allow edit", kind: "allow_once" },
  { optionId: "allow_session", name: "Allow all edits this session", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

// Editor is the client side of one connection: its buffers and what its
// handlers were asked, plus the option the next permission request gets.
class Editor {
  constructor(ws, fs) {
    this.ws = ws;
    this.fs = fs;
    this.buffers = new Map(); // absolute path → text
    this.answer = "";
    this.permissions = [];
    this.reads = [];
    this.writes = [];
  }

  app() {
    let app = acp.client({ name: "hermes-acp-edits" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      this.permissions.push(params);
      if (!this.answer) {
        fail(`unexpected session/request_permission for ${show(params.toolCall?.title)}; the step expects none`);
        return { outcome: { outcome: "selected", optionId: "reject" } };
      }
      if (!params.options.some((o) => o.optionId === this.answer)) {
        fail(`session/request_permission offers no option ${show(this.answer)}: ${show(params.options)}`);
        return { outcome: { outcome: "cancelled" } };
      }
      return { outcome: { outcome: "selected", optionId: this.answer } };
    });
    if (!this.fs) return app;
    return app
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        this.reads.push(params);
        let text = this.buffers.get(params.path);
        if (text === undefined) {
          try {
            text = readFileSync(params.path, "utf8");
          } catch {
            throw acp.RequestError.resourceNotFound(params.path);
          }
        }
        if (params.line != null || params.limit != null) {
          const lines = text.split("\n");
          const from = Math.max(0, (params.line ?? 1) - 1);
          text = lines.slice(from, params.limit == null ? undefined : from + params.limit).join("\n");
        }
        return { content: text };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        this.writes.push(params);
        this.buffers.set(params.path, params.content);
        return {};
      });
  }
}

// seed creates the workspace folder with the scenario's disk/ files.
function seed(ws, files) {
  mkdirSync(ws, { recursive: true });
  for (const [name, data] of files) {
    if (!name.startsWith("disk/")) continue;
    const p = join(ws, name.slice("disk/".length));
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, data);
  }
}

const readOr = (p, fallback) => {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return fallback;
  }
};

// StepRun is one step played: the step, its turn, the tool call id and the
// absolute path the step names.
function playStep(session, wire, editor, files, st) {
  editor.answer = st.answer;
  const permissionsBefore = editor.permissions.length;
  const writesBefore = editor.writes.length;
  const readsBefore = editor.reads.length;
  return playTurn(session, wire, st.id, st.prompt).then((turn) => {
    const run = {
      st,
      turn,
      callId: `call_${st.id}`,
      abs: st.args.path.startsWith("/") ? st.args.path : join(editor.ws, st.args.path),
      content: st.contentFile ? files.get(st.contentFile) : st.args.content,
      permissions: editor.permissions.slice(permissionsBefore),
      writes: editor.writes.slice(writesBefore),
      reads: editor.reads.slice(readsBefore),
    };
    checkCommon(run);
    return run;
  });
}

// checkCommon checks what every step shares: the turn ends with end_turn,
// the tool call is announced and ends, the model's reply quotes the tool
// result, which says what the step expects, and a permission request comes
// exactly when the step answers one.
function checkCommon({ st, turn, callId, permissions }) {
  const name = st.id;
  check(turn.stopReason === "end_turn", `${name}: stopReason ${show(turn.stopReason)}, want "end_turn"`);
  check(turn.response !== undefined, `${name}: no session/prompt response on the wire`);
  const announced = turn.toolCall(callId);
  const final = turn.finalUpdate(callId);
  check(announced !== undefined, `${name}: no tool_call for ${callId}`);
  check(final !== undefined, `${name}: no tool_call_update ending ${callId}`);
  inOrder(name, [
    ["the tool_call", announced],
    ["the final tool_call_update", final],
    ["the session/prompt response", turn.response],
  ]);
  const text = turn.text();
  const said = `${st.id} done; the tool said: `;
  if (check(text.includes(said), `${name}: the model's reply ${show(text)} does not quote the tool result`)) {
    const result = text.slice(text.indexOf(said) + said.length);
    for (const s of st.modelSees ?? []) check(result.includes(s), `${name}: the tool result ${show(result)} lacks ${show(s)}`);
    for (const s of st.modelNotSees ?? []) check(!result.includes(s), `${name}: the tool result ${show(result)} contains ${show(s)}`);
  }
  const status = update(final)?.status;
  const want = { written: "completed", read: "completed", denied: "failed", refused: "failed" }[st.outcome];
  check(want !== undefined, `${name}: unknown outcome ${show(st.outcome)}`);
  check(status === want, `${name}: the tool call ended ${show(status)}, want ${show(want)} (outcome ${st.outcome})`);
  const asked = turn.requests("session/request_permission");
  if (st.answer) {
    check(asked.length === 1 && permissions.length === 1, `${name}: ${asked.length} permission requests on the wire (${permissions.length} through the SDK), want 1`);
  } else {
    check(asked.length === 0 && permissions.length === 0, `${name}: ${asked.length} permission requests on the wire (${permissions.length} through the SDK), want none`);
  }
}

const update = (e) => e?.msg?.params?.update;

// checkDiff checks that content holds exactly one diff of abs from oldText
// to newText; a null oldText (a new file) must be present and null, not
// absent.
function checkDiff(name, where, content, abs, oldText, newText) {
  const diffs = (content ?? []).filter((c) => c.type === "diff");
  if (!check(diffs.length === 1, `${name}: ${where} has ${diffs.length} diffs, want 1: ${show(content)}`)) return;
  const d = diffs[0];
  check(d.path === abs, `${name}: ${where} diff path ${show(d.path)}, want ${show(abs)}`);
  if (oldText === null) {
    check("oldText" in d && d.oldText === null, `${name}: ${where} diff oldText ${show(d.oldText)}${"oldText" in d ? "" : " (absent)"}, want null for a new file`);
  } else {
    check(d.oldText === oldText, `${name}: ${where} diff oldText ${show(d.oldText)}, want ${show(oldText)}`);
  }
  check(d.newText === newText, `${name}: ${where} diff newText ${show(d.newText)}, want ${show(newText)}`);
}

// checkAllowedEdit checks an edit the user allowed (or that needed no
// approval) through an fs editor: the announced diff and locations, the one
// fs/write_text_file with exactly the new content after the approval and
// before the call completed, the editor's buffer, and a disk the agent did
// not touch.
function checkAllowedEdit(run, { oldText, diskBefore }) {
  const { st, turn, callId, abs, content, writes } = run;
  const name = st.id;
  const announced = turn.toolCall(callId);
  const tc = update(announced);
  if (tc) {
    check(tc.kind === "edit", `${name}: tool_call kind ${show(tc.kind)}, want "edit"`);
    checkDiff(name, "the tool_call", tc.content, abs, oldText, content);
    check(
      show(tc.locations) === show([{ path: abs, line: 1 }]),
      `${name}: tool_call locations ${show(tc.locations)}, want ${show([{ path: abs, line: 1 }])}`,
    );
  }
  const permission = turn.requests("session/request_permission")[0];
  const wireWrites = turn.requests("fs/write_text_file");
  const final = turn.finalUpdate(callId);
  if (check(wireWrites.length === 1 && writes.length === 1, `${name}: ${wireWrites.length} fs/write_text_file on the wire (${writes.length} through the SDK), want 1`)) {
    const p = wireWrites[0].msg.params;
    check(p.path === abs, `${name}: fs/write_text_file path ${show(p.path)}, want ${show(abs)}`);
    check(p.content === content, `${name}: fs/write_text_file content ${show(p.content)}, want exactly ${show(content)}`);
    check(p.sessionId === announced?.msg.params.sessionId, `${name}: fs/write_text_file sessionId ${show(p.sessionId)}, want the session's`);
  }
  inOrder(name, [
    ["the tool_call with the diff", announced],
    ["session/request_permission", permission],
    ["fs/write_text_file", wireWrites[0]],
    ["the final tool_call_update", final],
    ["the session/prompt response", turn.response],
  ]);
  check(run.editor.buffers.get(abs) === content, `${name}: the editor's buffer holds ${show(run.editor.buffers.get(abs))}, want ${show(content)}`);
  const disk = readOr(abs, undefined);
  check(disk === diskBefore, `${name}: the agent touched the disk: ${abs} holds ${show(disk)}, want ${show(diskBefore)} (only the editor writes)`);
}

// checkRefused checks a write refused before any approval (checkCommon saw
// that nothing was asked and the call failed): nothing read or written
// through the editor, nothing on disk.
function checkRefused(run) {
  const { st, turn, abs } = run;
  const name = st.id;
  for (const m of ["fs/read_text_file", "fs/write_text_file"]) {
    check(turn.requests(m).length === 0, `${name}: the agent sent ${m} for a path outside the workspace`);
  }
  check(!existsSync(abs), `${name}: ${abs} exists after a write outside the workspace was refused`);
  check(!run.editor.buffers.has(abs), `${name}: the editor's buffers got ${abs}`);
}

async function playFSEditor(command, args, sc, files, ws, transcript) {
  const editor = new Editor(ws, true);
  for (const [name, data] of files) {
    if (name.startsWith("buffer/")) editor.buffers.set(join(ws, name.slice("buffer/".length)), data);
  }
  const agentProc = await startAgent(command, args, { transcript, label: "fs" });
  try {
    await editor.app().connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
          clientInfo: { name: "hermes-acp-edits", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        const steps = sc.steps.filter((s) => s.client === "fs");
        const byId = Object.fromEntries(steps.map((s) => [s.id, s]));
        const play = async (id, checks) => {
          const st = byId[id];
          if (!st) return fail(`${id}: the scenario has no such fs step`);
          const before = { disk: readOr(st.args.path.startsWith("/") ? st.args.path : join(ws, st.args.path), undefined) };
          const run = await playStep(session, agentProc.wire, editor, files, st);
          run.editor = editor;
          checks(run, before);
          note(`${id}: ${run.turn.stopReason}; ${summarize(run.turn)}`);
        };

        await play("new_file", (run, before) => {
          check(before.disk === undefined, `new_file: ${run.abs} existed before the step`);
          checkAllowedEdit(run, { oldText: null, diskBefore: undefined });
          const p = run.permissions[0];
          if (p) {
            check(show(p.options) === show(editOptions), `new_file: permission options ${show(p.options)}, want ${show(editOptions)}`);
            check(p.toolCall?.toolCallId === run.callId, `new_file: permission toolCallId ${show(p.toolCall?.toolCallId)}, want ${show(run.callId)}`);
            checkDiff("new_file", "the permission request", p.toolCall?.content, run.abs, null, run.content);
          }
        });

        await play("rejected", (run, before) => {
          const { turn, callId, abs } = run;
          const tc = update(turn.toolCall(callId));
          checkDiff("rejected", "the tool_call", tc?.content, abs, before.disk, run.content);
          check(turn.requests("fs/write_text_file").length === 0 && run.writes.length === 0, "rejected: the agent sent fs/write_text_file after the user rejected the edit");
          check(!editor.buffers.has(abs), `rejected: the editor's buffer for ${abs} was written`);
          check(readOr(abs, undefined) === before.disk, `rejected: ${abs} changed on disk`);
        });

        await play("outside_abs", (run) => checkRefused(run));
        await play("outside_rel", (run) => checkRefused(run));

        await play("unsaved_buffer", (run, before) => {
          const { turn, abs } = run;
          const reads = turn.requests("fs/read_text_file").filter((e) => e.msg.params.path === abs);
          check(reads.length >= 1, `unsaved_buffer: no fs/read_text_file for ${abs}`);
          check(before.disk !== editor.buffers.get(abs), "unsaved_buffer: the fixture's buffer equals the disk");
          check(turn.requests("fs/write_text_file").length === 0, "unsaved_buffer: a read wrote a file");
        });

        await play("allow_session", (run, before) => {
          checkAllowedEdit(run, { oldText: null, diskBefore: before.disk });
          const modes = run.turn.agent((e) => isUpdate(e, "current_mode_update"));
          if (check(modes.length === 1, `allow_session: ${modes.length} current_mode_update, want 1`)) {
            const id = update(modes[0]).currentModeId;
            check(id === "accept_edits", `allow_session: currentModeId ${show(id)}, want "accept_edits"`);
            inOrder("allow_session", [
              ["session/request_permission", run.turn.requests("session/request_permission")[0]],
              ["current_mode_update", modes[0]],
              ["the session/prompt response", run.turn.response],
            ]);
          }
        });

        await play("after_allow_session", (run, before) => {
          checkAllowedEdit(run, { oldText: null, diskBefore: before.disk });
          const modes = run.turn.agent((e) => isUpdate(e, "current_mode_update"));
          check(modes.length === 0, `after_allow_session: ${modes.length} current_mode_update, want none (the mode is already accept_edits)`);
        });

        for (const id of Object.keys(byId)) {
          if (!["new_file", "rejected", "outside_abs", "outside_rel", "unsaved_buffer", "allow_session", "after_allow_session"].includes(id)) {
            fail(`${id}: edits.mjs does not know this fs step`);
          }
        }
      } finally {
        session.dispose();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
}

async function playDiskEditor(command, args, sc, files, ws, transcript) {
  const editor = new Editor(ws, false);
  const st = sc.steps.find((s) => s.client === "disk" && s.id === "disk_write");
  if (!st) return fail("disk_write: the scenario has no such disk step");
  const abs = join(ws, st.args.path);
  chmodSync(abs, 0o640);
  const before = statSync(abs);
  const oldText = readFileSync(abs, "utf8");
  const listing = readdirSync(ws).sort();
  const agentProc = await startAgent(command, args, { transcript, label: "disk" });
  try {
    await editor.app().connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-edits", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        const run = await playStep(session, agentProc.wire, editor, files, st);
        const { turn, callId, content } = run;
        const name = st.id;
        const tc = update(turn.toolCall(callId));
        checkDiff(name, "the tool_call", tc?.content, abs, oldText, content);
        for (const m of ["fs/read_text_file", "fs/write_text_file"]) {
          check(turn.requests(m).length === 0, `${name}: the agent sent ${m} to a client without the fs capability`);
        }
        check(readOr(abs, undefined) === content, `${name}: ${abs} holds ${show(readOr(abs, undefined))}, want ${show(content)}`);
        const after = statSync(abs);
        check(after.ino !== before.ino, `${name}: ${abs} kept inode ${before.ino}: the file was rewritten in place, not replaced atomically`);
        check((after.mode & 0o777) === 0o640, `${name}: mode ${(after.mode & 0o777).toString(8)} after the write, want 640 (kept)`);
        const now = readdirSync(ws).sort();
        check(show(now) === show(listing), `${name}: the workspace holds ${show(now)} after the write, want ${show(listing)} (no temporary file left)`);
        note(`${name}: ${turn.stopReason}; ${summarize(turn)}`);
      } finally {
        session.dispose();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
}

// summarize lists the notable messages of a turn for the summary.
function summarize(turn) {
  const counts = {};
  for (const e of turn.entries) {
    if (e.from !== "agent" || !e.msg?.method) continue;
    const k = e.msg.method === "session/update" ? e.msg.params.update.sessionUpdate : e.msg.method;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return Object.entries(counts)
    .map(([k, n]) => `${k}×${n}`)
    .join(", ");
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/edits.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const scenarioPath = process.env.CONFORMANCE_SCENARIO || new URL("../cmd/hermes-acp/testdata/e2e/edits.txtar", import.meta.url);
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-edits-"));
  const transcript = process.env.CONFORMANCE_TRANSCRIPT;
  try {
    const { scenario, files } = loadScenario(scenarioPath);
    const fsWS = join(workdir, "fs-ws");
    const diskWS = join(workdir, "disk-ws");
    seed(fsWS, files);
    seed(diskWS, files);
    await playFSEditor(command, args, scenario, files, fsWS, transcript);
    await playDiskEditor(command, args, scenario, files, diskWS, transcript);
    check(!existsSync(join(workdir, "outside.txt")), `${join(workdir, "outside.txt")} exists: a write escaped the workspace`);
  } catch (err) {
    failWith(err);
  } finally {
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report("edits", command);
}

await main();
