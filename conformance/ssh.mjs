#!/usr/bin/env node
// SSH terminal backend conformance (issue 18): the official ACP TypeScript
// SDK plays an editor (with terminals) against an agent whose config says
// terminal.backend: ssh, reaching a real sshd on a loopback port that the
// Go test started. The "remote" host is this machine, so the script checks
// the remote folder on disk and the remote processes in /proc.
//
// Connection A (the host key is known): the session offers the Terminal
// config option with ssh current, and /context says ssh is available; a
// command reads a workspace file and writes a changed one remotely, in the
// remote folder (not in an editor terminal), and the changed file is back in
// the workspace afterwards (a file it deleted is gone from it), while .env
// (and the rest of the deny list, and .gitignore'd files) never reached the
// remote folder; the tool call's content names the ssh backend; workdir maps
// to the same folder there; a pty command gets a remote terminal; output
// streams; a timeout kills the remote command; a dangerous command asks
// first and never runs after "Deny"; a background process is started, listed
// with the `process` tool and killed (its remote process gone); another
// reads a line submitted with `process submit`; a cancel during `sleep` ends
// the turn "cancelled" with no remote process left; sshd's connection
// processes are killed between two commands (and the workspace changes): the
// next command reports the lost connection, reconnects, copies the change
// and runs; a background process still running when the agent exits is
// killed on the remote.
//
// Connection B (a second agent whose known_hosts lacks the server's key):
// /context says ssh is unavailable, naming the key's fingerprint; a command
// fails with a message naming the key's fingerprint, and nothing ran (its
// remote folder was never even created).
//
// Usage:
//   node conformance/ssh.mjs AGENT [ARGS...]
// Environment: HERMES_HOME (A's config), SSH_WS (the workspace),
// SSH_REMOTE (A's remote folder), SSH_UNKNOWN_HOME and SSH_UNKNOWN_REMOTE
// (B's), SSH_FINGERPRINT (the host key's SHA256 fingerprint), SSHD_PID
// (the listening sshd), CONFORMANCE_TRANSCRIPT. The agent's model follows
// the prompts "[ID] {terminal arguments}" and "[ID] TOOL {arguments}"
// (cmd/hermes-acp's TestTypeScriptSDKSSH starts a fake one and the sshd).
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentText, callUpdates, check, failWith, finalOf, note, report, resultOf, runTurn, sdkVersion, show, startAgent, step, stopAgent, waitFor } from "./lib.mjs";

const [command, ...args] = process.argv.slice(2);
const env = process.env;
if (!command || !env.SSH_WS || !env.SSH_REMOTE || !env.SSH_UNKNOWN_HOME || !env.SSH_UNKNOWN_REMOTE || !env.SSH_FINGERPRINT || !env.SSHD_PID) {
  console.error("usage: SSH_WS=… SSH_REMOTE=… SSH_UNKNOWN_HOME=… SSH_UNKNOWN_REMOTE=… SSH_FINGERPRINT=… SSHD_PID=… node conformance/ssh.mjs AGENT [ARGS...]");
  process.exit(2);
}
const ws = env.SSH_WS;
const remote = env.SSH_REMOTE;

const prompt = (id, a, tool = "") => `[${id}] ${tool ? tool + " " : ""}${JSON.stringify(a)}`;
const contentText = (u) => (u?.content ?? []).filter((c) => c.type === "content" && c.content?.type === "text").map((c) => c.content.text).join("\n");
const terminalOption = (opts) => (opts ?? []).find((o) => o.id === "terminal_backend");
const readOr = (p, dflt = null) => (existsSync(p) ? readFileSync(p, "utf8") : dflt);

// procs lists /proc's processes: {pid, ppid, comm, cmd}.
function procs() {
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      if (fields[0] === "Z") continue; // a zombie runs nothing
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      out.push({ pid: Number(name), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf("(") + 1, close), cmd });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

// processesWith lists the live processes whose command line contains needle.
const processesWith = (needle) => procs().filter((p) => p.cmd.includes(needle) && p.pid !== process.pid).map((p) => `${p.pid}: ${p.cmd}`);

// dropConnections kills sshd's per-connection processes (the children of
// the listening sshd, and their sshd children): every client connection
// drops, as when the network or the server goes away.
function dropConnections(listener) {
  const all = procs();
  const killed = [];
  for (const p of all.filter((q) => q.ppid === listener)) {
    for (const c of all.filter((q) => q.ppid === p.pid && q.comm.startsWith("sshd"))) {
      process.kill(c.pid, "SIGKILL");
      killed.push(c.pid);
    }
    process.kill(p.pid, "SIGKILL");
    killed.push(p.pid);
  }
  return killed;
}

// perms answers session/request_permission with perms.answer (none
// expected when it is ""), keeping every request.
const perms = { answer: "", asked: [] };

async function connect(label, home, body) {
  const created = [];
  const agentProc = await startAgent(command, args, { env: { ...env, HERMES_HOME: home }, transcript: env.CONFORMANCE_TRANSCRIPT, label });
  try {
    const app = acp
      .client({ name: `hermes-acp-ssh-${label}` })
      .onRequest(acp.methods.client.terminal.create, ({ params }) => {
        created.push(params);
        throw acp.RequestError.internalError("this editor runs no terminals in this test");
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        perms.asked.push(params);
        check(perms.answer !== "", `unexpected session/request_permission: ${show(params.toolCall?.title)}`);
        return { outcome: { outcome: "selected", optionId: perms.answer || "deny" } };
      });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        `${label}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: true },
          clientInfo: { name: `hermes-acp-ssh-${label}`, version: sdkVersion },
        }),
      );
      const session = await step(`${label}: session/new`, agent.buildSession(ws).start());
      try {
        await body(agent, session);
      } finally {
        session.dispose?.();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
  check(created.length === 0, `${label}: ${created.length} editor terminals created; the commands belong on the ssh host`);
}

const leftMark = `8${process.pid % 10000}4.5`;

async function connectionA() {
  await connect("A", env.HERMES_HOME, async (agent, session) => {
    const opt = terminalOption(session.newSessionResponse?.configOptions);
    check(opt && opt.currentValue === "ssh" && show(opt.options.map((o) => o.value)) === show(["local", "ssh"]),
      `session/new: Terminal option ${show(opt)}, want local and ssh with ssh current`);
    note("A: the session offers the Terminal config option (local, ssh), ssh current");
    const ctxTurn = await runTurn(session, "/context", "/context");
    check(agentText(ctxTurn.updates).includes("Terminal: `ssh` (available)"), `/context: ${show(agentText(ctxTurn.updates))}, want the ssh backend available`);
    note("A: /context says Terminal: `ssh` (available)");

    // A command reads a workspace file and writes a changed one remotely.
    let turn = await runTurn(session, "edit", prompt("edit", { command: "pwd; tr a-z A-Z < input.txt > output.txt; cat output.txt; rm obsolete.txt; ls -A" }));
    const r = resultOf(turn, "edit");
    const lines = String(r?.output ?? "").split("\n");
    check(r && r.exit_code === 0 && lines[0] === remote && lines[1] === "HELLO OVER SSH", `edit: the model was told ${show(r)}, want the remote folder and the changed text`);
    check(!lines.includes(".env") && !lines.includes(".env.local") && !lines.includes("build"), `edit: the remote folder lists ${show(lines.slice(2))}`);
    check(readOr(join(ws, "output.txt")) === "HELLO OVER SSH\n", `edit: output.txt in the workspace is ${show(readOr(join(ws, "output.txt")))}, want the file written remotely`);
    check(readOr(join(remote, "input.txt")) === "hello over ssh\n", "edit: input.txt is not in the remote folder");
    check(!existsSync(join(ws, "obsolete.txt")), "edit: obsolete.txt, deleted by the command, is still in the workspace");
    for (const secret of [".env", ".env.local", "build/big.bin"]) {
      check(!existsSync(join(remote, secret)), `edit: ${secret} reached the remote folder`);
    }
    check(readOr(join(ws, ".env")) === "API_KEY=never-leaves-this-machine\n", "edit: .env in the workspace changed");
    const fin = finalOf(turn, "call_edit");
    const where = /Ran in ssh \S+@127\.0\.0\.1:\d+:(\S+)/.exec(contentText(fin));
    check(fin?.status === "completed" && where && where[1] === remote, `edit: the tool call does not name the ssh backend and folder: ${show(fin?.status)} ${show(contentText(fin))}`);
    note(`A: the command ran in ${show(where?.[0])}; output.txt it wrote is in the workspace, obsolete.txt it deleted is gone from it; .env, .env.local and the .gitignore'd build/ never reached ${remote}`);

    // Checkpoints (issue 29): the turn's checkpoint was taken before the
    // remote command and its end after the sync back, so /undo puts back
    // what the command changed over there; the next command's copy sends it.
    perms.answer = "rewind";
    turn = await runTurn(session, "/undo", "/undo");
    perms.answer = "";
    check(perms.asked.length === 1 && perms.asked[0].options.some((o) => o.optionId === "rewind"), `/undo: ${perms.asked.length} permission requests, want the rewind's`);
    perms.asked.length = 0;
    check(agentText(turn.updates).startsWith("Rewound to before turn"), `/undo: ${show(agentText(turn.updates))}`);
    check(!existsSync(join(ws, "output.txt")) && readOr(join(ws, "obsolete.txt")) === "the command deletes this\n",
      `/undo: output.txt ${show(readOr(join(ws, "output.txt")))}, obsolete.txt ${show(readOr(join(ws, "obsolete.txt")))}; want the workspace before the remote command`);

    // workdir maps to the same folder of the remote copy; a PTY works there.
    turn = await runTurn(session, "wd", prompt("wd", { command: "mkdir -p made && cd made && pwd && echo here > where.txt", workdir: ws }));
    const wd = resultOf(turn, "wd");
    check(wd && wd.exit_code === 0 && String(wd.output).trim() === `${remote}/made` && readOr(join(ws, "made", "where.txt")) === "here\n", `wd: the model was told ${show(wd)}`);
    check(!existsSync(join(remote, "output.txt")) && readOr(join(remote, "obsolete.txt")) === "the command deletes this\n", "wd: the remote folder does not hold the workspace /undo restored");
    note("A: /undo restored what the remote command changed (after the sync back), and the next command's copy took it to the remote folder");
    turn = await runTurn(session, "pty", prompt("pty", { command: "test -t 0 && test -t 1 && echo on a terminal", pty: true }));
    const pt = resultOf(turn, "pty");
    check(pt && pt.exit_code === 0 && String(pt.output).includes("on a terminal"), `pty: the model was told ${show(pt)}`);
    note("A: workdir is the same folder in the remote copy; a pty command runs on a remote terminal");

    // Output streams while the remote command runs; the model's copy is
    // capped as hermes caps it.
    turn = await runTurn(session, "seq", prompt("seq", { command: "seq 1 35000" }));
    const streamed = callUpdates(turn, "call_seq").filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress" && (u.content ?? []).some((c) => c.type === "content"));
    check(streamed.length >= 1 && streamed.length <= 50, `seq: ${streamed.length} output updates, want 1..50`);
    const sr = resultOf(turn, "seq");
    check(sr && sr.exit_code === 0 && String(sr.output).includes("OUTPUT TRUNCATED") && String(sr.output).endsWith("35000"), `seq: the model was told ${show(sr).slice(0, 300)}`);
    note(`A: seq 1 35000 on the ssh host streamed as ${streamed.length} tool_call_update(s); the model read the capped output`);

    // A timeout kills the remote command.
    const tMark = `7${process.pid % 10000}3.5`;
    turn = await runTurn(session, "timeout", prompt("timeout", { command: `echo started; sleep ${tMark}`, timeout: 1 }));
    const tr = resultOf(turn, "timeout");
    check(tr && /timed out|timeout/i.test(JSON.stringify(tr)) && String(tr.output).includes("started"), `timeout: the model was told ${show(tr)}`);
    check(await waitFor(() => processesWith(`sleep ${tMark}`).length === 0), `timeout: remote processes left: ${show(processesWith(`sleep ${tMark}`))}`);
    note("A: a remote command past its timeout was killed (no remote process left); the model was told");

    // A dangerous command asks first, and after "Deny" never runs remotely.
    perms.answer = "deny";
    turn = await runTurn(session, "deny", prompt("deny", { command: "rm -rf build-deny && touch denied-marker" }));
    perms.answer = "";
    check(perms.asked.length === 1, `deny: ${perms.asked.length} permission requests, want 1`);
    check(!existsSync(join(remote, "denied-marker")) && !existsSync(join(ws, "denied-marker")), "deny: the denied command ran");
    check(JSON.stringify(resultOf(turn, "deny") ?? "").includes("BLOCKED: User denied"), `deny: the model was told ${show(resultOf(turn, "deny"))}`);
    note("A: a dangerous command asked first; after \"Deny\" it never ran on the ssh host");

    // A background process, listed and killed with the process tool.
    const bgMark = `5${process.pid % 10000}1.5`;
    turn = await runTurn(session, "bg", prompt("bg", { command: `echo started; sleep ${bgMark}`, background: true }));
    const bg = resultOf(turn, "bg");
    check(bg && typeof bg.session_id === "string" && bg.session_id !== "" && bg.pid > 1, `bg: the model was told ${show(bg)}`);
    check(/started in ssh /.test(contentText(finalOf(turn, "call_bg"))), `bg: the tool call does not name the ssh backend: ${show(contentText(finalOf(turn, "call_bg")))}`);
    check(await waitFor(() => processesWith(`sleep ${bgMark}`).length > 0), `bg: remote processes ${show(processesWith(`sleep ${bgMark}`))}, want the sleep`);
    turn = await runTurn(session, "list", prompt("list", { action: "list" }, "process"));
    const listed = (resultOf(turn, "list")?.processes ?? []).find((p) => p.session_id === bg?.session_id);
    check(listed && listed.status === "running" && listed.command.includes(bgMark) && listed.pid === bg?.pid, `list: the model was told ${show(resultOf(turn, "list"))}, want ${show(bg?.session_id)} running`);
    turn = await runTurn(session, "kill", prompt("kill", { action: "kill", session_id: bg?.session_id }, "process"));
    const killed = resultOf(turn, "kill");
    check(killed && killed.status === "killed", `kill: the model was told ${show(killed)}`);
    check(await waitFor(() => processesWith(`sleep ${bgMark}`).length === 0), `kill: remote processes left: ${show(processesWith(`sleep ${bgMark}`))}`);
    turn = await runTurn(session, "list2", prompt("list2", { action: "list" }, "process"));
    const after = (resultOf(turn, "list2")?.processes ?? []).find((p) => p.session_id === bg?.session_id);
    check(!after || after.status !== "running", `list2: the killed process is listed as ${show(after)}`);
    note(`A: background process ${show(bg?.session_id)} (remote pid ${bg?.pid}) listed running by process, killed, its remote sleep gone`);

    // A background process reads what the process tool submits.
    turn = await runTurn(session, "reader", prompt("reader", { command: "read line; echo \"got $line\"", background: true }));
    const rd = resultOf(turn, "reader");
    turn = await runTurn(session, "submit", prompt("submit", { action: "submit", session_id: rd?.session_id, data: "over ssh" }, "process"));
    check(["ok", "success"].includes(resultOf(turn, "submit")?.status) || resultOf(turn, "submit")?.bytes_written > 0, `submit: the model was told ${show(resultOf(turn, "submit"))}`);
    turn = await runTurn(session, "wait", prompt("wait", { action: "wait", session_id: rd?.session_id, timeout: 30 }, "process"));
    const wt = resultOf(turn, "wait");
    check(wt && wt.exit_code === 0 && String(wt.output).includes("got over ssh"), `wait: the model was told ${show(wt)}`);
    note("A: a remote background process read the line the process tool submitted");

    // A cancel during sleep.
    const cMark = `6${process.pid % 10000}2.5`;
    let cancelAt = null;
    let sent = false;
    turn = await runTurn(session, "cancel", prompt("cancel", { command: `sleep ${cMark}` }), async (u) => {
      if (!sent && u.sessionUpdate === "tool_call") {
        sent = true;
        check(await waitFor(() => processesWith(`sleep ${cMark}`).length > 0, 15000), "cancel: the remote sleep never started");
        cancelAt = performance.now();
        await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
      }
    });
    check(turn.stopReason === "cancelled", `cancel: stopReason ${show(turn.stopReason)}, want "cancelled"`);
    const latency = cancelAt === null ? null : performance.now() - cancelAt;
    check(await waitFor(() => processesWith(`sleep ${cMark}`).length === 0), `cancel: remote processes left: ${show(processesWith(`sleep ${cMark}`))}`);
    note(`A: session/cancel during the remote sleep → "cancelled" in ${latency?.toFixed(0)} ms, no remote process left`);

    // The connection drops between two commands.
    const dropped = dropConnections(Number(env.SSHD_PID));
    check(dropped.length > 0, "drop: sshd had no connection process to kill");
    // The workspace changes meanwhile: the next command copies it first.
    writeFileSync(join(ws, "after-drop.txt"), "written while disconnected\n");
    turn = await runTurn(session, "again", prompt("again", { command: "echo reconnected; cat after-drop.txt" }));
    const ag = resultOf(turn, "again");
    check(ag && ag.exit_code === 0 && /connection to 127\.0\.0\.1:\d+ was lost/.test(String(ag.output)) && String(ag.output).includes("reconnected\nwritten while disconnected"),
      `again: the model was told ${show(ag)}, want the lost connection reported and the command run`);
    note(`A: sshd's connection processes killed (${dropped.length}) between commands; the next command said ${show(String(ag?.output ?? "").split("\n")[0])} and ran`);

    // A background process still running when the agent exits.
    turn = await runTurn(session, "left", prompt("left", { command: `sleep ${leftMark}`, background: true }));
    check(typeof resultOf(turn, "left")?.session_id === "string", `left: the model was told ${show(resultOf(turn, "left"))}`);
    check(await waitFor(() => processesWith(`sleep ${leftMark}`).length > 0), "left: the remote background sleep never started");
  });
  check(await waitFor(() => processesWith(`sleep ${leftMark}`).length === 0), `left: remote processes left after the agent exited: ${show(processesWith(`sleep ${leftMark}`))}`);
  note("A: a background process still running on the ssh host when the agent exited was killed");
}

async function connectionB() {
  await connect("B", env.SSH_UNKNOWN_HOME, async (agent, session) => {
    const ctxTurn = await runTurn(session, "/context", "/context");
    const ctxText = agentText(ctxTurn.updates);
    check(ctxText.includes("Terminal: `ssh`, unavailable: ") && ctxText.includes(env.SSH_FINGERPRINT), `B: /context: ${show(ctxText)}, want ssh unavailable with the fingerprint`);
    const marker = join(env.SSH_UNKNOWN_REMOTE, "ran");
    const turn = await runTurn(session, "unknown", prompt("unknown", { command: `mkdir -p ${env.SSH_UNKNOWN_REMOTE} && touch ${marker}` }));
    const r = resultOf(turn, "unknown");
    const told = JSON.stringify(r ?? "");
    check(told.includes(env.SSH_FINGERPRINT) && /not known/.test(told), `unknown: the model was told ${show(r)}, want the refusal with the fingerprint ${env.SSH_FINGERPRINT}`);
    const fin = finalOf(turn, "call_unknown");
    check(fin?.status === "failed", `unknown: final status ${show(fin?.status)}, want failed`);
    check(!existsSync(env.SSH_UNKNOWN_REMOTE), `unknown: ${env.SSH_UNKNOWN_REMOTE} exists: something ran on the host whose key is unknown`);
    note(`B: with the host key not in known_hosts, /context says ssh is unavailable and the command failed, both naming ${env.SSH_FINGERPRINT}; nothing ran, nothing was copied`);
  });
}

try {
  await connectionA();
  await connectionB();
} catch (err) {
  failWith(err);
}
report("SSH terminal backend", [command, ...args].join(" "));
