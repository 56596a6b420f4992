#!/usr/bin/env node
// Terminal conformance: the official ACP TypeScript SDK plays an editor
// while the model (scripted by cmd/hermes-acp's TestTypeScriptSDKTerminal)
// runs commands with the `terminal` tool (issue #11).
//
// Usage:
//   node conformance/terminal.mjs AGENT [ARGS...]
//
// Environment:
//   TERMINAL_WS             the sessions' cwd (a workspace folder)
//   TERMINAL_PHASE          "main" (connections A and B) or "restart" (C)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Each prompt is "[ID] ARGS": the model calls terminal with the JSON ARGS
// under the call id call_ID, then answers "ID done; the tool said: RESULT".
//
// Connection A advertises `terminal` and runs terminal/* like an editor:
// each command is a real process in its own process group; output keeps
// the last outputByteLimit bytes. On it: a command that exits 3 (create →
// wait_for_exit → output → release; the tool call embeds the terminal; the
// model reads the output and the exit code); a command past its timeout
// (killed and released; the model is told); a command the user cancels
// (session/cancel while it runs: stopReason cancelled, the terminal killed
// and released, its process gone). Every terminal created is released.
//
// Connection B advertises no terminal: the agent runs commands itself. On
// it: `seq 1 35000` streams as tool_call_updates (at most 50, each small;
// the model's result is capped with hermes's marker); a dangerous command
// the user denies never runs (its marker file is never created, the model
// reads "BLOCKED: User denied"); a dangerous command the user allows
// always; a cancel during `sleep` ends the turn with no process left.
//
// Connection C (phase "restart", a new agent process on the same
// $HERMES_HOME) runs the command allowed always with no permission request,
// and asks about another command with the same danger.
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { callUpdates, check, fail, failWith, finalOf, note, processesWith, report, resultOf, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// Terminals is the client side of terminal/*: real processes.
class Terminals {
  constructor() {
    this.calls = []; // [method, terminalId]
    this.terms = new Map();
    this.next = 1;
  }

  install(app) {
    const get = (id) => {
      const t = this.terms.get(id);
      if (!t) throw acp.RequestError.resourceNotFound(`terminal ${id}`);
      return t;
    };
    return app
      .onRequest(acp.methods.client.terminal.create, ({ params }) => {
        const id = `term-${this.next++}`;
        this.calls.push(["create", id, params]);
        const env = { ...process.env };
        for (const v of params.env ?? []) env[v.name] = v.value;
        const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
        const t = { id, child, out: Buffer.alloc(0), truncated: false, limit: params.outputByteLimit ?? 0, exit: null, released: false };
        t.exited = new Promise((resolve) => {
          child.on("error", (err) => {
            t.out = Buffer.concat([t.out, Buffer.from(String(err))]);
            t.exit = { exitCode: 127, signal: null };
            resolve();
          });
          child.on("close", (code, signal) => {
            t.exit = { exitCode: code, signal };
            resolve();
          });
        });
        const onData = (chunk) => {
          t.out = Buffer.concat([t.out, chunk]);
          if (t.limit > 0 && t.out.length > t.limit) {
            t.out = t.out.subarray(t.out.length - t.limit);
            t.truncated = true;
          }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        this.terms.set(id, t);
        return { terminalId: id };
      })
      .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
        this.calls.push(["wait_for_exit", params.terminalId]);
        const t = get(params.terminalId);
        await t.exited;
        return t.exit;
      })
      .onRequest(acp.methods.client.terminal.output, ({ params }) => {
        this.calls.push(["output", params.terminalId]);
        const t = get(params.terminalId);
        const res = { output: t.out.toString("utf8"), truncated: t.truncated };
        if (t.exit) res.exitStatus = t.exit;
        return res;
      })
      .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
        this.calls.push(["kill", params.terminalId]);
        this.killGroup(get(params.terminalId));
        return {};
      })
      .onRequest(acp.methods.client.terminal.release, async ({ params }) => {
        this.calls.push(["release", params.terminalId]);
        const t = get(params.terminalId);
        this.killGroup(t);
        await t.exited;
        t.released = true;
        return {};
      });
  }

  killGroup(t) {
    if (t.exit) return;
    try {
      process.kill(-t.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }

  methodsOf(id) {
    return this.calls.filter((c) => c[1] === id).map((c) => c[0]);
  }

  unreleased() {
    return [...this.terms.values()].filter((t) => !t.released).map((t) => t.id);
  }
}

// Permission answers: the next request gets `answer`; every request is kept.
class Permissions {
  constructor() {
    this.asked = [];
    this.answer = "";
  }

  install(app) {
    return app.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      this.asked.push(params);
      if (!this.answer) {
        fail(`unexpected session/request_permission: ${show(params.toolCall?.title)}`);
        return { outcome: { outcome: "selected", optionId: "deny" } };
      }
      if (!params.options.some((o) => o.optionId === this.answer)) {
        fail(`session/request_permission offers no option ${show(this.answer)}: ${show(params.options.map((o) => o.optionId))}`);
        return { outcome: { outcome: "cancelled" } };
      }
      return { outcome: { outcome: "selected", optionId: this.answer } };
    });
  }
}

const prompt = (id, args) => `[${id}] ${JSON.stringify(args)}`;

async function connect(command, args, label, caps, perms, terms, body) {
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label });
  try {
    let app = acp.client({ name: `hermes-acp-terminal-${label}` });
    app = perms.install(app);
    if (terms) app = terms.install(app);
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        `${label}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: caps,
          clientInfo: { name: `hermes-acp-terminal-${label}`, version: sdkVersion },
        }),
      );
      const session = await step(`${label}: session/new`, agent.buildSession(process.env.TERMINAL_WS).start());
      try {
        await body(agent, session);
      } finally {
        session.dispose?.();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
}

// cancelDuring sends the prompt, waits until started() says the command
// runs, cancels, and returns the turn and the cancel's latency.
async function cancelDuring(agent, session, name, text, started) {
  let cancelAt = null;
  let sent = false;
  const turn = await runTurn(session, name, text, async (u) => {
    if (!sent && started(u)) {
      sent = true;
      // Give the command time to start its process.
      await new Promise((r) => setTimeout(r, 300));
      cancelAt = performance.now();
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
    }
  });
  return { turn, latency: cancelAt === null ? null : performance.now() - cancelAt };
}

async function phaseMain(command, args) {
  const ws = process.env.TERMINAL_WS;
  // A: the editor runs the commands.
  const termsA = new Terminals();
  const permsA = new Permissions();
  await connect(command, args, "A", { fs: { readTextFile: false, writeTextFile: false }, terminal: true }, permsA, termsA, async (agent, session) => {
    let turn = await runTurn(session, "exit3", prompt("exit3", { command: "echo hello from the editor; exit 3" }));
    const created = termsA.calls.filter((c) => c[0] === "create");
    check(created.length === 1, `exit3: ${created.length} terminal/create, want 1`);
    if (created.length === 1) {
      const id = created[0][1];
      check(show(termsA.methodsOf(id)) === show(["create", "wait_for_exit", "output", "release"]), `exit3: terminal calls ${show(termsA.methodsOf(id))}`);
      check(created[0][2].cwd === ws, `exit3: terminal/create cwd ${show(created[0][2].cwd)}, want the workspace ${show(ws)}`);
      const embeds = callUpdates(turn, "call_exit3").filter((u) => (u.content ?? []).some((c) => c.type === "terminal" && c.terminalId === id));
      check(embeds.length > 0, "exit3: the tool call never embedded the terminal");
      const fin = finalOf(turn, "call_exit3");
      check(fin && (fin.content ?? []).some((c) => c.type === "terminal" && c.terminalId === id), `exit3: the final update does not keep the terminal: ${show(fin)}`);
    }
    if (created.length === 1) note(`A: terminal/create ran ${show([created[0][2].command, ...(created[0][2].args ?? [])].join(" ")).slice(0, 160)}`);
    const r = resultOf(turn, "exit3");
    check(r && r.exit_code === 3 && String(r.output).includes("hello from the editor"), `exit3: the model was told ${show(r)}`);
    note("A: a command ran in an editor terminal (create → wait_for_exit → output → release), embedded in the tool call; the model read its output and exit code 3");

    turn = await runTurn(session, "timeout", prompt("timeout", { command: "echo started; sleep 30", timeout: 1 }));
    const tcreated = termsA.calls.filter((c) => c[0] === "create").at(-1);
    const tcalls = tcreated ? termsA.methodsOf(tcreated[1]) : [];
    check(tcalls.includes("kill") && tcalls.at(-1) === "release", `timeout: terminal calls ${show(tcalls)}, want a kill and a release last`);
    const tr = resultOf(turn, "timeout");
    check(tr && /timed out|timeout/i.test(JSON.stringify(tr)), `timeout: the model was told ${show(tr)}`);
    note("A: a command past its timeout was killed and its terminal released; the model was told it timed out");

    const { turn: cturn, latency } = await cancelDuring(agent, session, "cancelA", prompt("cancelA", { command: "sleep 31.4159" }), (u) =>
      (u.content ?? []).some((c) => c.type === "terminal"),
    );
    check(cturn.stopReason === "cancelled", `cancelA: stopReason ${show(cturn.stopReason)}, want "cancelled"`);
    const ccreated = termsA.calls.filter((c) => c[0] === "create").at(-1);
    const ccalls = ccreated ? termsA.methodsOf(ccreated[1]) : [];
    check(ccalls.includes("kill") && ccalls.at(-1) === "release", `cancelA: terminal calls ${show(ccalls)}, want a kill and a release last`);
    check(processesWith("31.4159").length === 0, `cancelA: processes left: ${show(processesWith("31.4159"))}`);
    note(`A: session/cancel during sleep → "cancelled" in ${latency?.toFixed(0)} ms; the terminal was killed and released, no process left`);
    check(termsA.unreleased().length === 0, `A: terminals never released: ${show(termsA.unreleased())}`);
    check(permsA.asked.length === 0, `A: ${permsA.asked.length} permission requests for safe commands`);
  });

  // B: the agent runs the commands itself.
  const permsB = new Permissions();
  await connect(command, args, "B", { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, permsB, null, async (agent, session) => {
    let turn = await runTurn(session, "seq", prompt("seq", { command: "seq 1 35000" }));
    const streamed = callUpdates(turn, "call_seq").filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress" && (u.content ?? []).some((c) => c.type === "content"));
    const bytes = streamed.reduce((n, u) => n + JSON.stringify(u).length, 0);
    check(streamed.length >= 1 && streamed.length <= 50, `seq: ${streamed.length} output updates, want 1..50`);
    check(bytes < 50 * 6000, `seq: the output updates carry ${bytes} bytes of JSON`);
    const fin = finalOf(turn, "call_seq");
    check(fin?.status === "completed", `seq: final status ${show(fin?.status)}`);
    const sr = resultOf(turn, "seq");
    check(sr && String(sr.output).includes("OUTPUT TRUNCATED") && String(sr.output).endsWith("35000") && sr.exit_code === 0, `seq: the model was told ${show(sr).slice(0, 300)}`);
    note(`B: seq 1 35000 streamed as ${streamed.length} tool_call_update(s) (${bytes} bytes of JSON); the model read the capped output with hermes's marker`);

    const marker = join(ws, "denied-marker");
    permsB.answer = "deny";
    turn = await runTurn(session, "deny", prompt("deny", { command: `rm -rf build-deny && touch ${marker}` }));
    check(permsB.asked.length === 1, `deny: ${permsB.asked.length} permission requests, want 1`);
    check(!existsSync(marker), "deny: the denied command ran (its marker file exists)");
    const dr = resultOf(turn, "deny");
    check(JSON.stringify(dr ?? "").includes("BLOCKED: User denied"), `deny: the model was told ${show(dr)}`);
    check(finalOf(turn, "call_deny")?.status === "failed", `deny: final status ${show(finalOf(turn, "call_deny")?.status)}, want failed`);
    note("B: a dangerous command asked first; after \"Deny\" it never ran (no marker file) and the model read \"BLOCKED: User denied…\"");

    const always = join(ws, "always-marker");
    permsB.answer = "allow_always";
    turn = await runTurn(session, "always", prompt("always", { command: `rm -rf build-always && touch ${always}` }));
    check(permsB.asked.length === 2, `always: ${permsB.asked.length} permission requests, want 2`);
    check(existsSync(always), "always: the allowed command did not run");
    note("B: \"Allow always\" ran the command (the Go test checks config.yaml, then restarts the agent)");
    permsB.answer = "";

    const { turn: cturn, latency } = await cancelDuring(agent, session, "cancelB", prompt("cancelB", { command: "sleep 32.7183" }), (u) => u.sessionUpdate === "tool_call");
    check(cturn.stopReason === "cancelled", `cancelB: stopReason ${show(cturn.stopReason)}, want "cancelled"`);
    check(processesWith("32.7183").length === 0, `cancelB: processes left: ${show(processesWith("32.7183"))}`);
    note(`B: session/cancel during sleep → "cancelled" in ${latency?.toFixed(0)} ms, no process left`);
  });
}

async function phaseRestart(command, args) {
  const ws = process.env.TERMINAL_WS;
  const perms = new Permissions();
  await connect(command, args, "C", { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, perms, null, async (agent, session) => {
    // "Always allow" stored the exact command: the same command runs
    // without asking (its marker, removed first, is made again); another
    // command with the same danger still asks.
    const marker = join(ws, "always-marker");
    rmSync(marker, { force: true });
    await runTurn(session, "again", prompt("again", { command: `rm -rf build-always && touch ${marker}` }));
    check(perms.asked.length === 0, `restart: ${perms.asked.length} permission requests, want 0 (allow always survives a restart)`);
    check(existsSync(marker), "restart: the command allowed always did not run");
    perms.answer = "deny";
    const other = join(ws, "other-marker");
    await runTurn(session, "other", prompt("other", { command: `rm -rf build-other && touch ${other}` }));
    check(perms.asked.length === 1, `restart: ${perms.asked.length} permission requests for another recursive delete, want 1`);
    check(!existsSync(other), "restart: a command the exact entry does not cover ran");
    note("C: after a restart, the command allowed always ran without asking; another recursive delete still asked");
  });
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const phase = process.env.TERMINAL_PHASE;
  if (!command || !process.env.TERMINAL_WS || (phase !== "main" && phase !== "restart")) {
    process.stderr.write("usage: TERMINAL_WS=DIR TERMINAL_PHASE=main|restart node conformance/terminal.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  try {
    if (phase === "main") await phaseMain(command, args);
    else await phaseRestart(command, args);
  } catch (err) {
    failWith(err);
  }
  report(`terminal conformance (${phase})`, command);
}

main();
