#!/usr/bin/env node
// Encoding conformance: the official ACP TypeScript SDK plays an editor
// while a hostile scripted model edits binary, Latin-1 and CRLF files, and
// checks that no byte is lost.
//
// Usage:
//   node conformance/encoding.mjs AGENT [ARGS...]
//
// The agent is started with ARGS plus "--model script:FILE", a script this
// file writes, once per connection. Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspaces and scripts
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Two connections over the same files. The first ("disk") has no fs
// capability, so the agent reads and writes the disk itself: patch (replace
// and V4A) and write_file on a PNG and on a NUL-filled file are refused
// before any permission request and leave them byte-identical; read_file of
// a Latin-1 file shows it decoded with a note on its encoding; a careful
// patch adding an ASCII line keeps every other byte, and one adding "Ω",
// which Latin-1 cannot hold, is refused; patches of a CRLF file with one
// LF line keep every untouched line's ending and give new lines CRLF. The
// second ("fs") advertises fs.readTextFile/writeTextFile and serves files
// decoded as UTF-8, as an editor that opened them as UTF-8 would: the
// binary files are refused the same way, the Latin-1 file (shown with
// replacement characters) is refused with an explanation, and the CRLF
// edits reach fs/write_text_file with the same endings. Every diff shown
// must be exactly the change. Exit status: 0 on success, 1 on any failure,
// 2 for usage errors.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, playTurn, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// A 1×1 PNG image.
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

// The files each workspace starts with.
const seedFiles = {
  "logo.png": png,
  blob: Buffer.concat([Buffer.alloc(40), Buffer.from("\nMARKER\n"), Buffer.alloc(40, 1)]),
  "latin1.txt": Buffer.from("caf\xe9 cr\xe8me br\xfbl\xe9e\nStra\xdfe \xfcber\nfin\n", "latin1"),
  "crlf.txt": Buffer.from("one\r\ntwo\r\nlf-only\nfour\r\n", "latin1"),
};

const latin1Text = "café crème brûlée\nStraße über\nfin\n";
const crlf1 = "one\r\ntwo\r\nadded\r\nlf-only\nfour\r\n";
const crlf2 = "one\r\ntwo\r\nadded\r\nlf-only\nv4a line\r\nfour\r\n";

// The steps, in order. Each is one prompt: the model calls the tool, then
// (if the result contains what the connection's `sees` says) answers
// "<id> ok". outcome is refused, read or written; for a written step,
// `old`/`new` are the texts the diff must show and `disk` (disk connection)
// or `editor` (fs connection) what must be there afterwards.
const steps = [
  {
    id: "bin_replace",
    tool: "patch",
    args: { mode: "replace", path: "logo.png", old_string: "IHDR", new_string: "XXXX" },
    sees: { disk: "Cannot edit binary file", fs: "Cannot edit binary file" },
    outcome: "refused",
  },
  {
    id: "bin_v4a",
    tool: "patch",
    args: { mode: "patch", patch: "*** Begin Patch\n*** Update File: blob\n-MARKER\n+HACKED\n*** End Patch" },
    sees: { disk: "Cannot edit binary file", fs: "Cannot edit binary file" },
    outcome: "refused",
  },
  {
    id: "bin_write",
    tool: "write_file",
    args: { path: "blob", content: "plain text\n" },
    sees: { disk: "Cannot edit binary file", fs: "Cannot edit binary file" },
    outcome: "refused",
  },
  {
    id: "latin1_read",
    tool: "read_file",
    args: { path: "latin1.txt" },
    sees: { disk: "Edits keep that encoding", fs: "The editor decoded this file as UTF-8" },
    outcome: "read",
  },
  {
    id: "latin1_add",
    tool: "patch",
    args: { mode: "replace", path: "latin1.txt", old_string: "fin", new_string: "fin\nadded line" },
    sees: { disk: '"success":true', fs: "replacement characters" },
    outcome: { disk: "written", fs: "refused" },
    old: latin1Text,
    new: latin1Text + "added line\n",
    disk: { "latin1.txt": Buffer.concat([seedFiles["latin1.txt"], Buffer.from("added line\n")]) },
  },
  {
    id: "latin1_omega",
    tool: "patch",
    args: { mode: "replace", path: "latin1.txt", old_string: "fin", new_string: "fin\nΩmega" },
    sees: { disk: "cannot be written in windows-1252", fs: "replacement characters" },
    outcome: "refused",
  },
  {
    id: "crlf_patch",
    tool: "patch",
    args: { mode: "replace", path: "crlf.txt", old_string: "two", new_string: "two\nadded" },
    sees: { disk: '"success":true', fs: '"success":true' },
    outcome: "written",
    old: "one\r\ntwo\r\nlf-only\nfour\r\n",
    new: crlf1,
    disk: { "crlf.txt": Buffer.from(crlf1, "latin1") },
  },
  {
    id: "crlf_v4a",
    tool: "patch",
    args: { mode: "patch", patch: "*** Begin Patch\n*** Update File: crlf.txt\n lf-only\n+v4a line\n*** End Patch" },
    sees: { disk: '"success":true', fs: '"success":true' },
    outcome: "written",
    old: crlf1,
    new: crlf2,
    disk: { "crlf.txt": Buffer.from(crlf2, "latin1") },
  },
];

const outcomeOf = (st, conn) => (typeof st.outcome === "string" ? st.outcome : st.outcome[conn]);

// script is the model script of one connection, as JSON (which YAML reads).
function script(conn) {
  const replies = [];
  for (const st of steps) {
    replies.push({ tool_calls: [{ name: st.tool, id: `call_${st.id}`, arguments: st.args }] });
    replies.push({ expect: { role: "tool", contains: st.sees[conn] }, text: `${st.id} ok` });
  }
  return JSON.stringify({ replies }, null, 1);
}

function seed(ws) {
  mkdirSync(ws, { recursive: true });
  for (const [name, data] of Object.entries(seedFiles)) writeFileSync(join(ws, name), data);
}

const update = (e) => e?.msg?.params?.update;

// diskState reads every seeded file's bytes.
function diskState(ws) {
  return Object.fromEntries(Object.keys(seedFiles).map((n) => [n, readFileSync(join(ws, n))]));
}

async function playConnection(conn, command, args, workdir, transcript) {
  const ws = join(workdir, `${conn}-ws`);
  seed(ws);
  const scriptPath = join(workdir, `${conn}-script.yaml`);
  writeFileSync(scriptPath, script(conn));
  const withFS = conn === "fs";
  const buffers = new Map(); // the fs editor's buffers: absolute path → text
  const permissions = [];
  const writes = [];
  let app = acp.client({ name: "hermes-acp-encoding" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "allow" } };
  });
  if (withFS) {
    app = app
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        let text = buffers.get(params.path);
        if (text === undefined) {
          try {
            text = readFileSync(params.path, "utf8"); // as an editor that opened it as UTF-8
          } catch {
            throw acp.RequestError.resourceNotFound(params.path);
          }
        }
        return { content: text };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        writes.push(params);
        buffers.set(params.path, params.content);
        return {};
      });
  }
  const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript, label: conn });
  try {
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        `${conn}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: withFS, writeTextFile: withFS }, terminal: false },
          clientInfo: { name: "hermes-acp-encoding", version: sdkVersion },
        }),
      );
      const session = await step(`${conn}: session/new`, agent.buildSession(ws).start());
      try {
        let expected = diskState(ws);
        for (const st of steps) {
          const name = `${conn}/${st.id}`;
          const outcome = outcomeOf(st, conn);
          const permissionsBefore = permissions.length;
          const writesBefore = writes.length;
          const turn = await playTurn(session, agentProc.wire, name, st.id);
          const text = turn.text();
          check(text === `${st.id} ok`, `${name}: the model's reply is ${show(text)}, want ${show(`${st.id} ok`)} (the tool result lacked ${show(st.sees[conn])})`);
          const final = update(turn.finalUpdate(`call_${st.id}`));
          const wantStatus = outcome === "refused" ? "failed" : "completed";
          check(final?.status === wantStatus, `${name}: the tool call ended ${show(final?.status)}, want ${show(wantStatus)}`);
          const asked = permissions.slice(permissionsBefore);
          const written = writes.slice(writesBefore);
          if (outcome === "written") {
            if (check(asked.length === 1, `${name}: ${asked.length} permission requests, want 1`)) {
              const diffs = (asked[0].toolCall?.content ?? []).filter((c) => c.type === "diff");
              check(
                diffs.length === 1 && diffs[0].oldText === st.old && diffs[0].newText === st.new,
                `${name}: the permission request's diff is ${show(diffs)}, want exactly ${show(st.old)} → ${show(st.new)}`,
              );
            }
            if (withFS) {
              const abs = join(ws, Object.keys(st.disk)[0]);
              check(
                written.length === 1 && written[0].path === abs && written[0].content === st.new,
                `${name}: fs/write_text_file ${show(written)}, want one write of ${show(st.new)} to ${abs}`,
              );
            } else {
              expected = { ...expected, ...st.disk };
            }
          } else {
            check(asked.length === 0, `${name}: ${asked.length} permission requests for a ${outcome} step, want none`);
            check(written.length === 0, `${name}: ${written.length} fs/write_text_file for a ${outcome} step, want none`);
          }
          // The disk holds exactly what it should: byte-identical where
          // nothing was written (the fs connection never writes the disk).
          const now = diskState(ws);
          for (const [file, bytes] of Object.entries(expected)) {
            check(now[file].equals(bytes), `${name}: ${file} holds ${show(now[file].toString("latin1"))}, want ${show(bytes.toString("latin1"))}`);
          }
          note(`${name}: ${outcome}, ${show(text)}`);
        }
      } finally {
        session.dispose();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/encoding.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-encoding-"));
  const transcript = process.env.CONFORMANCE_TRANSCRIPT;
  try {
    await playConnection("disk", command, args, workdir, transcript);
    await playConnection("fs", command, args, workdir, transcript);
  } catch (err) {
    failWith(err);
  } finally {
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report("encoding", command);
}

await main();
