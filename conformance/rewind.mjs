#!/usr/bin/env node
// Checkpoints and rewind conformance (issue 29): the official ACP
// TypeScript SDK plays an editor while a scripted model changes files with
// patch, write_file and a terminal command, and the user undoes the turn.
//
// Usage:
//   node conformance/rewind.mjs AGENT [ARGS...]
//
// The agent is started with ARGS plus "--model script:FILE", a script this
// file writes. Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace and the script
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// The workspace is a git repository. The editor advertises
// fs.readTextFile/writeTextFile; its write handler saves to the disk, as an
// editor saving the buffer would. Turn 1: the model patches a.go, creates
// b.txt with write_file and runs `sh -c 'rm c.txt; echo x >> d.txt; …'`
// through terminal, which also rewrites a binary file, a CRLF file and
// u.txt. The user then edits u.txt. `/rewind` lists turn 1 with its files;
// `/undo` asks first (a permission request listing every file, u.txt as a
// conflict) and, allowed, restores a.go, removes b.txt, recreates c.txt,
// restores d.txt, the binary and the CRLF file byte for byte — the text
// files through fs/write_text_file — and leaves u.txt with the user's edit;
// `git status` and the .git folder are as before. Turn 2 patches a.go
// again; _hermes/rewind/list shows it, _hermes/rewind/apply with dryRun
// lists a.go without asking or writing, and a real apply, allowed with
// "drop the conversation", restores a.go and shortens the conversation
// (/context). Exit status: 0 on success, 1 on any failure, 2 for usage
// errors.

import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, playTurn, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const bin = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe, 0x00, 0x01]);
const seedFiles = {
  "a.go": "package a\n\nfunc A() int { return 1 }\n",
  "c.txt": "c stays until the command removes it\n",
  "d.txt": "d line 1\nd line 2\n",
  "bin.dat": bin,
  "crlf.txt": "one\r\ntwo\r\nlf-only\nfour\r\n",
  "u.txt": "the user's notes\n",
};

const turn1Command =
  "sh -c 'rm c.txt; echo x >> d.txt; printf \"\\000\\001changed\" > bin.dat; printf \"rewritten\\r\\n\" > crlf.txt; echo agent >> u.txt'";

function script() {
  const replies = [
    {
      tool_calls: [
        { name: "patch", id: "call_patch", arguments: { mode: "replace", path: "a.go", old_string: "return 1", new_string: "return 2" } },
        { name: "write_file", id: "call_write", arguments: { path: "b.txt", content: "created by the turn\n" } },
        { name: "terminal", id: "call_term", arguments: { command: turn1Command } },
      ],
    },
    { text: "turn 1 done" },
    { tool_calls: [{ name: "patch", id: "call_patch2", arguments: { mode: "replace", path: "a.go", old_string: "return 1", new_string: "return 3" } }] },
    { text: "turn 2 done" },
  ];
  return JSON.stringify({ replies }, null, 1);
}

function git(ws, ...args) {
  return execFileSync("git", args, {
    cwd: ws,
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  }).toString();
}

// dotGit hashes every file of the user's .git folder (names and bytes).
function dotGit(ws) {
  const h = createHash("sha256");
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(p + "\0").update(readFileSync(p));
    }
  };
  walk(join(ws, ".git"));
  return h.digest("hex");
}

const readOr = (p) => (existsSync(p) ? readFileSync(p) : null);

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/rewind.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-rewind-"));
  const ws = join(workdir, "ws");
  try {
    mkdirSync(ws, { recursive: true });
    for (const [name, data] of Object.entries(seedFiles)) writeFileSync(join(ws, name), data);
    git(ws, "init", "-q");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "seed");
    const statusBefore = git(ws, "status", "--porcelain");
    const gitBefore = dotGit(ws);
    const scriptPath = join(workdir, "script.yaml");
    writeFileSync(scriptPath, script());

    const permissions = [];
    const writes = [];
    let rewindAnswer = "rewind";
    const app = acp
      .client({ name: "hermes-acp-rewind" })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        permissions.push(params);
        if (params.options.some((o) => o.optionId === "rewind")) {
          return { outcome: { outcome: "selected", optionId: rewindAnswer } };
        }
        const allow = params.options.find((o) => o.kind === "allow_once");
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      })
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        try {
          return { content: readFileSync(params.path, "utf8") };
        } catch {
          throw acp.RequestError.resourceNotFound(params.path);
        }
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        writes.push(params);
        writeFileSync(params.path, params.content); // the editor saves the buffer
        return {};
      });

    const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "rewind" });
    try {
      await app.connectWith(agentProc.stream, async (agent) => {
        const init = await step(
          "initialize",
          agent.request(acp.methods.agent.initialize, {
            protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
            clientInfo: { name: "hermes-acp-rewind", version: sdkVersion },
          }),
        );
        check(init.agentCapabilities?._meta?.hermes?.rewind === true, `agentCapabilities._meta.hermes = ${show(init.agentCapabilities?._meta?.hermes)}, want rewind: true`);
        const session = await step("session/new", agent.buildSession(ws).start());
        const sid = session.sessionId;
        try {
          // Turn 1 changes files three ways.
          const t1 = await playTurn(session, agentProc.wire, "turn 1", "change the files");
          check(t1.text().endsWith("turn 1 done"), `turn 1: agent text ${show(t1.text())}`);
          for (const id of ["call_patch", "call_write", "call_term"]) {
            check(t1.finalUpdate(id)?.msg.params.update.status === "completed", `turn 1: ${id} ended ${show(t1.finalUpdate(id)?.msg.params.update.status)}`);
          }
          check(readFileSync(join(ws, "a.go"), "utf8").includes("return 2"), "turn 1 did not patch a.go");
          check(!existsSync(join(ws, "c.txt")), "turn 1 did not remove c.txt");
          // The user edits u.txt after the turn.
          const userU = "the user's notes\nagent\nand the user's edit after the turn\n";
          writeFileSync(join(ws, "u.txt"), userU);

          const list = await playTurn(session, agentProc.wire, "/rewind", "/rewind");
          const lt = list.text();
          check(/Turn 1\*\*/.test(lt) && lt.includes("change the files"), `/rewind: ${show(lt)}, want turn 1 with its prompt`);
          for (const f of ["modified a.go", "added b.txt", "deleted c.txt", "modified d.txt", "modified bin.dat", "modified crlf.txt", "modified u.txt"]) {
            check(lt.includes(f), `/rewind lists no ${show(f)}: ${show(lt)}`);
          }

          const writesBefore = writes.length;
          const permsBefore = permissions.length;
          const undo = await playTurn(session, agentProc.wire, "/undo", "/undo");
          const asked = permissions.slice(permsBefore);
          if (check(asked.length === 1, `/undo: ${asked.length} permission requests, want 1`)) {
            const ids = asked[0].options.map((o) => o.optionId);
            check(show(ids) === show(["rewind", "rewind_drop", "rewind_overwrite", "rewind_cancel"]), `/undo options ${show(ids)}`);
            const listing = asked[0].toolCall.content.find((c) => c.type === "content")?.content?.text ?? "";
            for (const [action, file] of [["restore", "a.go"], ["remove", "b.txt"], ["recreate", "c.txt"], ["restore", "d.txt"], ["restore", "bin.dat"], ["restore", "crlf.txt"]]) {
              check(listing.includes(`${action} ${join(ws, file)}`), `the permission request does not list ${action} ${file}: ${show(listing)}`);
            }
            check(/restore .*u\.txt.*CONFLICT/.test(listing), `u.txt is not shown as a conflict: ${show(listing)}`);
            const diffs = asked[0].toolCall.content.filter((c) => c.type === "diff");
            const aDiff = diffs.find((d) => d.path === join(ws, "a.go"));
            check(aDiff?.oldText?.includes("return 2") && aDiff?.newText === seedFiles["a.go"], `a.go diff ${show(aDiff)}`);
          }
          const ut = undo.text();
          check(ut.startsWith("Rewound to before turn 1") && ut.includes("Left alone"), `/undo: ${show(ut)}`);
          for (const [name, want] of Object.entries(seedFiles)) {
            if (name === "u.txt") continue;
            const got = readOr(join(ws, name));
            check(got !== null && got.equals(Buffer.from(want)), `${name} after /undo = ${show(got?.toString("latin1"))}, want ${show(Buffer.from(want).toString("latin1"))}`);
          }
          check(!existsSync(join(ws, "b.txt")), "b.txt was not removed");
          check(readFileSync(join(ws, "u.txt"), "utf8") === userU, `u.txt (the user's edit) was overwritten: ${show(readFileSync(join(ws, "u.txt"), "utf8"))}`);
          const edWrites = writes.slice(writesBefore).map((w) => w.path).sort();
          const wantWrites = ["a.go", "c.txt", "crlf.txt", "d.txt"].map((f) => join(ws, f));
          check(show(edWrites) === show(wantWrites), `fs/write_text_file of ${show(edWrites)}, want the text files ${show(wantWrites)}`);
          check(dotGit(ws) === gitBefore, "the user's .git folder changed"); // before git status refreshes its index
          const statusAfter = git(ws, "status", "--porcelain");
          check(statusAfter === statusBefore + " M u.txt\n", `git status after /undo: ${show(statusAfter)}, want only the user's u.txt edit`);
          const done = undo.finalUpdate(undo.agent((e) => e.msg?.params?.update?.sessionUpdate === "tool_call")[0]?.msg.params.update.toolCallId);
          check(done?.msg.params.update.status === "completed", `the rewind tool call ended ${show(done?.msg.params.update.status)}`);

          // Turn 2, then the editor's extension.
          const ctx1 = (await playTurn(session, agentProc.wire, "/context 1", "/context")).text();
          const t2 = await playTurn(session, agentProc.wire, "turn 2", "patch a.go again");
          check(t2.text() === "turn 2 done", `turn 2: ${show(t2.text())}`);
          const listed = await step("_hermes/rewind/list", agent.request("_hermes/rewind/list", { sessionId: sid }));
          const last = listed.turns?.at(-1);
          check(
            listed.turns?.length === 1 && last.prompt === "patch a.go again" && last.files.length === 1 && last.files[0].path === join(ws, "a.go") && last.files[0].change === "modified" && last.files[0].added === 1 && last.files[0].removed === 1,
            `_hermes/rewind/list = ${show(listed)}`,
          );
          const permsDry = permissions.length;
          const dry = await step("_hermes/rewind/apply dry run", agent.request("_hermes/rewind/apply", { sessionId: sid, turn: last.turn, dryRun: true }));
          check(dry.outcome === "dry_run" && dry.files.length === 1 && dry.files[0].change === "restore" && dry.files[0].added === 1, `dry run = ${show(dry)}`);
          check(permissions.length === permsDry, "a dry run asked for permission");
          check(readFileSync(join(ws, "a.go"), "utf8").includes("return 3"), "a dry run changed a.go");
          rewindAnswer = "rewind_drop";
          const applied = await step("_hermes/rewind/apply", agent.request("_hermes/rewind/apply", { sessionId: sid, turn: last.turn }));
          check(applied.outcome === "restored" && applied.conversationDropped === true, `apply = ${show(applied)}`);
          check(permissions.length === permsDry + 1, "the apply did not ask first");
          check(readFileSync(join(ws, "a.go"), "utf8") === seedFiles["a.go"], "the apply did not restore a.go");
          const ctx2 = (await playTurn(session, agentProc.wire, "/context 2", "/context")).text();
          const count = (t) => Number(/Conversation: (\d+) messages/.exec(t)?.[1]);
          check(count(ctx2) === count(ctx1) + 1, `conversation ${count(ctx1)} messages before turn 2, ${count(ctx2)} after the drop; want the turn gone and one note added`);
          const empty = await step("_hermes/rewind/list after", agent.request("_hermes/rewind/list", { sessionId: sid }));
          check(empty.turns?.length === 0, `the undone turns are still listed: ${show(empty)}`);
          note("a turn's patch, write_file and terminal changes undone byte for byte; a user edit kept as a conflict; .git untouched; the rewind extension");
        } finally {
          session.dispose();
        }
      });
    } finally {
      await stopAgent(agentProc);
    }
  } catch (err) {
    failWith(err);
  } finally {
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report("rewind", command);
}

await main();
